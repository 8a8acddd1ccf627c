library flet_tts;

export 'src/extension.dart' show Extension;
