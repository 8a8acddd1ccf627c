package app.quire.open_with

import io.flutter.embedding.engine.plugins.FlutterPlugin
import io.flutter.plugin.common.MethodCall
import io.flutter.plugin.common.MethodChannel

/** "take": the files OpenWithActivity copied since the last call, each once. */
class OpenWithPlugin : FlutterPlugin, MethodChannel.MethodCallHandler {
    private var channel: MethodChannel? = null

    override fun onAttachedToEngine(binding: FlutterPlugin.FlutterPluginBinding) {
        channel = MethodChannel(binding.binaryMessenger, "app.quire/open_with").also { it.setMethodCallHandler(this) }
    }

    override fun onDetachedFromEngine(binding: FlutterPlugin.FlutterPluginBinding) {
        channel?.setMethodCallHandler(null)
        channel = null
    }

    override fun onMethodCall(call: MethodCall, result: MethodChannel.Result) {
        if (call.method == "take") result.success(take()) else result.notImplemented()
    }

    companion object {
        private val pending = mutableListOf<Map<String, String>>()

        @JvmStatic
        fun add(name: String, path: String) = synchronized(pending) { pending.add(mapOf("name" to name, "path" to path)) }

        @JvmStatic
        fun take(): List<Map<String, String>> = synchronized(pending) { pending.toList().also { pending.clear() } }
    }
}
