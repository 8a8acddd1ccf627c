library flet_open_with;

export 'src/extension.dart' show Extension;
