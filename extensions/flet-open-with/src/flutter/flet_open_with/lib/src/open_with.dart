import 'package:flet/flet.dart';
import 'package:flutter/foundation.dart';
import 'package:flutter/services.dart';

/// Hands Python the files OpenWithActivity received (see the plugin's Kotlin): "take" returns them once each.
class OpenWithService extends FletService {
  OpenWithService({required super.control});

  static const MethodChannel _channel = MethodChannel("app.quire/open_with");

  @override
  void init() {
    super.init();
    control.addInvokeMethodListener(_invokeMethod);
  }

  Future<dynamic> _invokeMethod(String name, dynamic args) async {
    switch (name) {
      case "take":
        if (defaultTargetPlatform != TargetPlatform.android) {
          return [];
        }
        final List<dynamic>? taken = await _channel.invokeMethod<List<dynamic>>("take");
        return (taken ?? [])
            .map((f) => {"name": "${f["name"]}", "path": "${f["path"]}"})
            .toList();
      default:
        throw Exception("Unknown OpenWith method: $name");
    }
  }

  @override
  void dispose() {
    control.removeInvokeMethodListener(_invokeMethod);
    super.dispose();
  }
}
