package app.quire.open_with

import android.app.Activity
import android.content.Intent
import android.net.Uri
import android.os.Build
import android.os.Bundle
import android.provider.OpenableColumns
import java.io.File

/** Receives "Open with" (VIEW) and "Share" (SEND) for a book, copies it into the cache, and opens the app. */
class OpenWithActivity : Activity() {
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        try {
            received(intent)?.let { copy(it) }
        } catch (error: Exception) {
            // an unreadable or vanished file: nothing is handed on, the app still opens
        }
        packageManager.getLaunchIntentForPackage(packageName)?.let {
            it.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK or Intent.FLAG_ACTIVITY_REORDER_TO_FRONT)
            startActivity(it)
        }
        finish()
    }

    private fun received(intent: Intent?): Uri? = when (intent?.action) {
        Intent.ACTION_VIEW -> intent.data
        Intent.ACTION_SEND -> if (Build.VERSION.SDK_INT >= 33) {
            intent.getParcelableExtra(Intent.EXTRA_STREAM, Uri::class.java)
        } else {
            @Suppress("DEPRECATION") intent.getParcelableExtra(Intent.EXTRA_STREAM)
        }
        else -> null
    }

    private fun copy(uri: Uri) {
        val name = displayName(uri).replace(Regex("[\\\\/:*?\"<>|\\x00-\\x1f]"), "_").take(120).ifBlank { "book" }
        val folder = File(cacheDir, "opened").apply { mkdirs() }
        val target = File(folder, "${System.currentTimeMillis()}-$name")
        contentResolver.openInputStream(uri)?.use { input ->
            target.outputStream().use { output ->
                val buffer = ByteArray(64 * 1024)
                var total = 0L
                while (true) {
                    val read = input.read(buffer)
                    if (read < 0) break
                    total += read
                    if (total > MAX_BYTES) {
                        output.close()
                        target.delete()
                        return
                    }
                    output.write(buffer, 0, read)
                }
            }
        } ?: return
        OpenWithPlugin.add(name, target.absolutePath)
    }

    private fun displayName(uri: Uri): String {
        if (uri.scheme == "content") {
            contentResolver.query(uri, arrayOf(OpenableColumns.DISPLAY_NAME), null, null, null)?.use {
                if (it.moveToFirst()) return it.getString(0) ?: ""
            }
        }
        return uri.lastPathSegment ?: ""
    }

    companion object {
        const val MAX_BYTES = 256L * 1024 * 1024
    }
}
