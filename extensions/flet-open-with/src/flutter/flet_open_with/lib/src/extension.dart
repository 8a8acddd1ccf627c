import 'package:flet/flet.dart';

import 'open_with.dart';

class Extension extends FletExtension {
  @override
  FletService? createService(Control control) {
    switch (control.type) {
      case "OpenWith":
        return OpenWithService(control: control);
      default:
        return null;
    }
  }
}
