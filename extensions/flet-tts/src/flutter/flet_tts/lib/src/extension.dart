import 'package:flet/flet.dart';

import 'text_to_speech.dart';

class Extension extends FletExtension {
  @override
  FletService? createService(Control control) {
    switch (control.type) {
      case "TextToSpeech":
        return TextToSpeechService(control: control);
      default:
        return null;
    }
  }
}
