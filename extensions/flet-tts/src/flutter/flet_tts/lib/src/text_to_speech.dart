import 'package:flet/flet.dart';
import 'package:flutter_tts/flutter_tts.dart';

/// Speaks with the phone's own voices (Android TextToSpeech, iOS AVSpeechSynthesizer) through flutter_tts.
/// "speak" completes once the text was said: awaitSpeakCompletion(true) makes flutter_tts's speak() wait.
class TextToSpeechService extends FletService {
  TextToSpeechService({required super.control});

  final FlutterTts _tts = FlutterTts();

  @override
  void init() {
    super.init();
    _tts.awaitSpeakCompletion(true);
    control.addInvokeMethodListener(_invokeMethod);
  }

  Future<dynamic> _invokeMethod(String name, dynamic args) async {
    switch (name) {
      case "speak":
        final String language = args["language"] ?? "";
        if (language.isNotEmpty) {
          await _tts.setLanguage(language);
        }
        final String voice = args["voice"] ?? "";
        if (voice.isNotEmpty) {
          await _tts.setVoice({"name": voice, "locale": language});
        }
        await _tts.setSpeechRate((args["rate"] as num?)?.toDouble() ?? 0.5);
        final result = await _tts.speak(args["text"] ?? "");
        return result == 1;
      case "stop":
        await _tts.stop();
        return null;
      case "voices":
        final String language = (args?["language"] ?? "").toString().toLowerCase();
        final List<dynamic> all = await _tts.getVoices ?? [];
        return all
            .map((v) => {"name": "${v["name"]}", "locale": "${v["locale"]}"})
            .where((v) => language.isEmpty || v["locale"]!.toLowerCase().startsWith(language))
            .toList();
      default:
        throw Exception("Unknown TextToSpeech method: $name");
    }
  }

  @override
  void dispose() {
    control.removeInvokeMethodListener(_invokeMethod);
    _tts.stop();
    super.dispose();
  }
}
