"""Interface strings in English and Chinese; the language follows the system unless the reader picks one."""

from __future__ import annotations

import locale
import os

LANGUAGES = ("en", "zh")

STRINGS: dict[str, dict[str, str]] = {
    "app.title": {"en": "Quire", "zh": "Quire"},
    "library.title": {"en": "Library", "zh": "书库"},
    "library.empty": {
        "en": "Your library is empty. Import a book to start reading.",
        "zh": "书库是空的。导入一本书开始阅读吧。",
    },
    "library.count.one": {"en": "{n} book", "zh": "{n} 本书"},
    "library.count.many": {"en": "{n} books", "zh": "{n} 本书"},
    "library.search": {"en": "Search titles, authors and text", "zh": "搜索书名、作者和正文"},
    "library.ask": {"en": "Ask your library", "zh": "问问书库"},
    "library.ask.title": {"en": "Ask your library", "zh": "问问书库"},
    "library.ask.box": {"en": "Ask another question", "zh": "再问一个问题"},
    "library.ask.fence": {
        "en": "Answers come from every book, each only as far as you have read it (spoiler protection).",
        "zh": "答案来自每本书，每本书只用到你读过的位置（防剧透）。",
    },
    "library.passages": {"en": "In the books' text", "zh": "正文中"},
    "library.passages.looking": {"en": "Looking in the books' text…", "zh": "正在正文中查找…"},
    "library.passages.none": {
        "en": "Nothing you have read in your books matches.",
        "zh": "你读过的内容中没有相符的段落。",
    },
    "library.passages.none_anywhere": {"en": "Nothing in your books matches.", "zh": "你的书中没有相符的段落。"},
    "library.passages.open": {"en": "Open {title} at this passage", "zh": "在此段落打开《{title}》"},
    "library.search.clear": {"en": "Clear the search", "zh": "清除搜索"},
    "library.sort.recent": {"en": "Recent", "zh": "最近"},
    "library.sort.title": {"en": "Title", "zh": "书名"},
    "library.sort.author": {"en": "Author", "zh": "作者"},
    "library.sort.progress": {"en": "Progress", "zh": "进度"},
    "library.import": {"en": "Import books", "zh": "导入图书"},
    "library.remove.confirm": {"en": "Remove “{title}” and its notes?", "zh": "删除《{title}》及其笔记？"},
    "library.unknown_author": {"en": "Unknown author", "zh": "佚名"},
    "library.warnings": {"en": "{n} import warning(s)", "zh": "{n} 条导入警告"},
    "library.new": {"en": "New", "zh": "未读"},
    "reader.toc": {"en": "Contents", "zh": "目录"},
    "reader.xray": {"en": "X-Ray: people, places, terms", "zh": "人物、地点与名词"},
    "xray.fence": {"en": "Named up to where you have read ({p}% of the book)", "zh": "截至你读到的地方（全书 {p}%）"},
    "xray.none": {
        "en": "No names yet. X-Ray lists the people, places and terms the book names up to where you have read.",
        "zh": "还没有名字。这里列出你读到的地方为止书中提到的人物、地点与名词。",
    },
    "xray.none.cjk": {
        "en": "Chinese names are found by the desktop app; this device cannot tag Chinese words yet.",
        "zh": "中文名字由电脑版找出；这台设备还不能为中文分词标注。",
    },
    "xray.scanning": {"en": "Finding the names in what you have read…", "zh": "正在找出你读过的部分里的名字…"},
    "xray.mentions": {"en": "{n} mentions · {kind}", "zh": "提到 {n} 次 · {kind}"},
    "xray.kind.person": {"en": "person", "zh": "人物"},
    "xray.kind.place": {"en": "place", "zh": "地点"},
    "xray.kind.term": {"en": "term", "zh": "名词"},
    "xray.also": {"en": "Also: {names}", "zh": "又称：{names}"},
    "xray.first": {"en": "First mention", "zh": "首次出现"},
    "xray.more": {"en": "{n} more", "zh": "另外 {n} 处"},
    "xray.mention": {"en": "Mention {n}", "zh": "第 {n} 处"},
    "xray.describe": {
        "en": "Describe them with AI (sends their sentences so far)",
        "zh": "用 AI 简介（只发送已读部分的句子）",
    },
    "stats.title": {"en": "Reading statistics", "zh": "阅读统计"},
    "stats.none": {
        "en": "No reading yet. Time is counted while a book is open (a page left alone over five minutes stops "
        "counting), with the paragraphs you read on and your sessions, on every device you sync.",
        "zh": "还没有阅读记录。打开书时开始计时（页面闲置超过五分钟不再计时），并记录读过的段落与阅读次数，所有同步的设备合计。",
    },
    "stats.summary": {
        "en": "{time} read in {sessions}, on {days}; {streak} in a row now.",
        "zh": "共读 {time}，{sessions}，{days}；当前连续 {streak}。",
    },
    "stats.days": {"en": "Days", "zh": "每天"},
    "stats.weeks": {"en": "Weeks", "zh": "每周"},
    "stats.books": {"en": "Books", "zh": "各书"},
    "stats.hours": {"en": "{h} h {m} min", "zh": "{h} 小时 {m} 分"},
    "stats.minutes": {"en": "{m} min", "zh": "{m} 分钟"},
    "stats.sessions": {"en": "{n} sessions", "zh": "{n} 次"},
    "stats.sessions.one": {"en": "1 session", "zh": "1 次"},
    "stats.day_count": {"en": "{n} days", "zh": "{n} 天"},
    "stats.day_count.one": {"en": "1 day", "zh": "1 天"},
    "stats.speed": {"en": "{n} characters a minute", "zh": "每分钟 {n} 字"},
    "stats.left": {
        "en": "{chapter} left in the chapter, {book} in the book",
        "zh": "本章还剩 {chapter}，全书还剩 {book}",
    },
    "dictionaries.title": {"en": "Dictionaries", "zh": "词典"},
    "dictionaries.import": {"en": "Import a dictionary…", "zh": "导入词典…"},
    "dictionaries.importing": {"en": "Importing the dictionary…", "zh": "正在导入词典…"},
    "dictionaries.added": {"en": "Added {name}: {n} headwords.", "zh": "已添加 {name}：{n} 个词条。"},
    "dictionaries.line": {"en": "{name} ({kind}, {n} headwords)", "zh": "{name}（{kind}，{n} 个词条）"},
    "dictionaries.remove": {"en": "Remove {name}", "zh": "移除 {name}"},
    "dictionaries.none": {
        "en": "None yet. Pick a StarDict dictionary's .ifo, .idx and .dict.dz together, a dictd one's .index and "
        ".dict.dz, or a CC-CEDICT file: words are then looked up offline from the selection bar.",
        "zh": "还没有。请一起选择 StarDict 词典的 .ifo、.idx 与 .dict.dz，dictd 词典的 .index 与 .dict.dz，"
        "或 CC-CEDICT 文件；之后在选中文字的工具栏里离线查词。",
    },
    "reader.translate": {"en": "Translate the paragraph (AI)", "zh": "翻译本段（AI）"},
    "translate.working": {
        "en": "Translating (the AI is sent this paragraph only)…",
        "zh": "正在翻译（只发送这一段给 AI）…",
    },
    "reader.define": {"en": "Look up (your dictionaries)", "zh": "查词典"},
    "aloud.start": {"en": "Read aloud from here", "zh": "从这里朗读"},
    "aloud.stop": {"en": "Stop reading aloud", "zh": "停止朗读"},
    "aloud.pause": {"en": "Pause", "zh": "暂停"},
    "aloud.resume": {"en": "Resume", "zh": "继续"},
    "aloud.speed": {"en": "Speed", "zh": "语速"},
    "aloud.voice": {"en": "Voice", "zh": "声音"},
    "aloud.voice.default": {"en": "Default voice", "zh": "默认声音"},
    "aloud.no_text": {
        "en": "This book has pictures only: there is nothing to read aloud.",
        "zh": "这本书只有图片，没有可朗读的文字。",
    },
    "aloud.file": {"en": "Read aloud into a file", "zh": "朗读到文件"},
    "aloud.file.about": {
        "en": "This computer could not play the speech ({why}). Choose a voice, and the reading is saved as a WAV "
        "file to play elsewhere.",
        "zh": "这台电脑无法播放朗读（{why}）。选一个声音，朗读会保存为 WAV 文件，可在别处播放。",
    },
    "aloud.file.amount": {"en": "How much", "zh": "朗读多少"},
    "aloud.file.sentences": {"en": "{n} sentences", "zh": "{n} 句"},
    "aloud.file.path": {"en": "Save as", "zh": "保存为"},
    "aloud.file.save": {"en": "Save", "zh": "保存"},
    "aloud.file.writing": {"en": "Reading {n} sentences into the file…", "zh": "正在把 {n} 句朗读到文件…"},
    "aloud.file.done": {
        "en": "Saved {n} sentences ({minutes} min of speech) to {path}.",
        "zh": "已将 {n} 句（约 {minutes} 分钟）保存到 {path}。",
    },
    "aloud.finished": {"en": "Read aloud to the end of the book.", "zh": "已朗读到书末。"},
    "notes.vocabulary": {"en": "Vocabulary", "zh": "生词本"},
    "notes.vocabulary.remove": {"en": "Take off the vocabulary list", "zh": "从生词本删除"},
    "settings.translate_to": {"en": "Translate paragraphs into", "zh": "段落翻译成"},
    "settings.translate_to.default": {
        "en": "The app's language, else English",
        "zh": "应用的语言，否则英文",
    },
    "translate.hide": {"en": "Hide the translation", "zh": "隐藏译文"},
    "reader.left": {"en": "{chapter} left in chapter · {book} in book", "zh": "本章还剩 {chapter} · 全书 {book}"},
    "stats.under_minute": {"en": "under a minute", "zh": "不到 1 分钟"},
    "common.back": {"en": "Back", "zh": "返回"},
    "catalogs.title": {"en": "Catalogs (OPDS)", "zh": "书目（OPDS）"},
    "catalogs.about": {
        "en": "Add a calibre content server, Calibre-Web or any OPDS catalog, then look through it and download its "
        "books into the library. The password goes to the system keychain.",
        "zh": "添加 calibre 内容服务器、Calibre-Web 或任何 OPDS 书目，然后浏览并把书下载到书库。密码保存在系统钥匙串中。",
    },
    "catalogs.url": {"en": "Catalog address (OPDS)", "zh": "书目地址（OPDS）"},
    "catalogs.user": {"en": "User name (if the catalog asks for one)", "zh": "用户名（书目需要时）"},
    "catalogs.password": {"en": "Password (if the catalog asks for one)", "zh": "密码（书目需要时）"},
    "catalogs.add": {"en": "Add catalog", "zh": "添加书目"},
    "catalogs.added": {"en": "Added “{title}”.", "zh": "已添加“{title}”。"},
    "catalogs.browse": {"en": "Browse", "zh": "浏览"},
    "catalogs.remove": {"en": "Remove {title}", "zh": "删除 {title}"},
    "catalogs.search": {"en": "Search this catalog", "zh": "搜索此书目"},
    "catalogs.empty": {"en": "Nothing here.", "zh": "这里没有内容。"},
    "catalogs.elsewhere": {
        "en": "{n} link(s) to other servers were left out.",
        "zh": "已略去 {n} 个指向其他服务器的链接。",
    },
    "catalogs.previous": {"en": "Previous page", "zh": "上一页"},
    "catalogs.next": {"en": "Next page", "zh": "下一页"},
    "catalogs.in_library": {"en": "In your library", "zh": "已在书库中"},
    "catalogs.no_format": {"en": "No format Quire reads", "zh": "没有 Quire 能读的格式"},
    "catalogs.download": {"en": "Download “{title}”", "zh": "下载《{title}》"},
    "catalogs.starting": {"en": "Starting…", "zh": "开始下载…"},
    "catalogs.progress": {"en": "{done} of {total} MB", "zh": "{done} / {total} MB"},
    "catalogs.imported": {"en": "“{title}” is in your library.", "zh": "《{title}》已加入书库。"},
    "catalogs.already": {"en": "“{title}” was in your library already.", "zh": "《{title}》已在书库中。"},
    "koreader.title": {"en": "KOReader sync server", "zh": "KOReader 同步服务器"},
    "koreader.about": {
        "en": "Off by default. With it on, a book read in KOReader (on a Kobo, a Kindle…) and here meets at the "
        "furthest place: its progress is exchanged when you open and close the book.",
        "zh": "默认关闭。开启后，在 KOReader（Kobo、Kindle 等）和这里读的同一本书会停在读得最远的地方：打开和关闭书时交换进度。",
    },
    "koreader.url": {"en": "KOReader sync server address", "zh": "KOReader 同步服务器地址"},
    "koreader.user": {"en": "KOReader sync user name", "zh": "KOReader 同步用户名"},
    "koreader.password": {"en": "KOReader sync password", "zh": "KOReader 同步密码"},
    "koreader.register": {"en": "Create this user on the server", "zh": "在服务器上创建此用户"},
    "koreader.turn_on": {"en": "Turn on KOReader sync", "zh": "开启 KOReader 同步"},
    "koreader.turn_off": {"en": "Turn off", "zh": "关闭"},
    "koreader.on": {"en": "KOReader sync is on: {url} as {user}.", "zh": "KOReader 同步已开启：{url}，用户 {user}。"},
    "koreader.off": {"en": "KOReader sync is off.", "zh": "KOReader 同步已关闭。"},
    "koreader.sync": {"en": "Sync progress now", "zh": "立即同步进度"},
    "koreader.synced": {
        "en": "Progress sent for {sent}, received for {received}.",
        "zh": "发送 {sent} 本、收到 {received} 本的进度。",
    },
    "koreader.moved": {"en": "Opened where you read on {device}.", "zh": "已打开到你在 {device} 上读到的地方。"},
    "travel.title": {"en": "Highlights elsewhere", "zh": "标注同步到别处"},
    "travel.koreader.title": {"en": "KOReader highlights", "zh": "KOReader 标注"},
    "travel.koreader.about": {
        "en": "The folder KOReader's books are in: an e-reader plugged in over USB, or a folder Syncthing shares "
        "with it. Import brings its highlights and notes here; export writes yours into its books (EPUB) for "
        "KOReader to show. Nothing is ever doubled, and nothing else KOReader keeps there changes.",
        "zh": "KOReader 的书所在的文件夹：用 USB 连接的阅读器，或与它用 Syncthing 共享的文件夹。导入会把那里的标注和笔记带到这里；"
        "导出会把你的标注写进它的书（EPUB），让 KOReader 显示。不会重复，KOReader 在那里保存的其他内容也不会变。",
    },
    "travel.koreader.folder": {"en": "KOReader's books folder", "zh": "KOReader 书籍文件夹"},
    "travel.koreader.import": {"en": "Import highlights", "zh": "导入标注"},
    "travel.koreader.export": {"en": "Export highlights", "zh": "导出标注"},
    "travel.koreader.no_folder": {
        "en": "Type the folder KOReader's books are in first.",
        "zh": "请先输入 KOReader 书籍所在的文件夹。",
    },
    "travel.koreader.imported": {
        "en": "From KOReader: {highlights} added, from {books}.",
        "zh": "来自 KOReader：新增 {highlights}，来自 {books}。",
    },
    "travel.koreader.exported": {
        "en": "To KOReader: {highlights} written, into {books}.",
        "zh": "写入 KOReader：{highlights}，写进 {books}。",
    },
    "travel.koreader.problems": {
        "en": "{n} of KOReader's files could not be used; the first: {first}",
        "zh": "有 {n} 个 KOReader 文件无法使用；第一个：{first}",
    },
    "travel.readwise.title": {"en": "Readwise", "zh": "Readwise"},
    "travel.readwise.about": {
        "en": "Off until you give an access token (readwise.io/access_token; it is kept in the system's secret "
        "store). Each send carries only what is new or whose note changed. Never in local-only mode.",
        "zh": "在你提供访问令牌之前保持关闭（readwise.io/access_token；令牌保存在系统的密钥存储中）。每次只发送新的或笔记有改动的标注。"
        "仅本地模式下从不发送。",
    },
    "travel.readwise.token": {"en": "Readwise access token", "zh": "Readwise 访问令牌"},
    "travel.readwise.connect": {"en": "Connect and send", "zh": "连接并发送"},
    "travel.readwise.send": {"en": "Send new highlights", "zh": "发送新标注"},
    "travel.readwise.turn_off": {"en": "Turn off Readwise", "zh": "关闭 Readwise"},
    "travel.readwise.off": {"en": "Readwise is off.", "zh": "Readwise 已关闭。"},
    "travel.readwise.sent": {
        "en": "Sent to Readwise: {highlights}, of {books}; {unchanged} there already.",
        "zh": "已发送到 Readwise：{books}的 {highlights}；{unchanged} 条已在那里。",
    },
    "folders.title": {"en": "Folders", "zh": "文件夹"},
    "folders.about": {
        "en": "Import every book in a folder (a calibre library folder comes with calibre's titles, authors, tags "
        "and covers), or watch one: the books put there later are offered when Quire starts and while it runs.",
        "zh": "导入文件夹里的所有书（calibre 书库文件夹会带上 calibre 的书名、作者、标签和封面），或关注一个文件夹：之后放进去的书会在 Quire 启动和运行时提示导入。",
    },
    "folders.pick": {"en": "Choose a folder of books", "zh": "选择书籍文件夹"},
    "folders.import": {"en": "Import a folder…", "zh": "导入文件夹…"},
    "folders.watch": {"en": "Watch a folder…", "zh": "关注文件夹…"},
    "folders.unwatch": {"en": "Stop watching {folder}", "zh": "不再关注 {folder}"},
    "folders.path": {"en": "Folder on this computer", "zh": "这台电脑上的文件夹"},
    "folders.path.hint": {"en": "/home/me/Books", "zh": "/home/me/Books"},
    "folders.import.typed": {"en": "Import this folder", "zh": "导入这个文件夹"},
    "folders.watch.typed": {"en": "Watch this folder", "zh": "关注这个文件夹"},
    "folders.not_a_folder": {
        "en": "{folder} is not a folder on this computer: type its full path.",
        "zh": "{folder} 不是这台电脑上的文件夹：请输入完整路径。",
    },
    "folders.importing": {"en": "Importing the books in {folder}…", "zh": "正在导入 {folder} 中的书…"},
    "folders.imported": {
        "en": "{n} new book(s) imported; {refused} refused.",
        "zh": "导入 {n} 本新书；{refused} 本未能导入。",
    },
    "folders.new": {"en": "{n} new book(s) in your folders", "zh": "文件夹里有 {n} 本新书"},
    "folders.import_new": {"en": "Import", "zh": "导入"},
    "folders.not_now": {"en": "Not now", "zh": "暂不"},
    "define.none": {"en": "“{word}” is not in your dictionaries.", "zh": "你的词典里没有“{word}”。"},
    "define.no_dictionaries": {
        "en": "No dictionaries yet: import one in Settings › Dictionaries (StarDict, dictd or CC-CEDICT).",
        "zh": "还没有词典：请在“设置 › 词典”中导入（StarDict、dictd 或 CC-CEDICT）。",
    },
    "define.from": {"en": "from “{word}”", "zh": "由“{word}”查得"},
    "define.keep": {"en": "Add to vocabulary", "zh": "加入生词本"},
    "define.kept": {"en": "“{word}” is in this book's vocabulary list.", "zh": "“{word}”已加入本书的生词本。"},
    "define.explain": {"en": "Explain in this context", "zh": "结合上下文解释"},
    "define.explaining": {"en": "Asking the AI (it is sent this sentence only)…", "zh": "正在询问 AI（只发送这一句）…"},
    "xray.tell_more": {"en": "Tell me more", "zh": "多讲一些"},
    "xray.tell_more.question": {
        "en": "Who or what is {name}, from what I have read so far?",
        "zh": "根据我目前读到的内容，{name}是谁（或是什么）？",
    },
    "xray.describing": {"en": "Asking the AI to describe the names…", "zh": "正在请 AI 简介这些名字…"},
    "settings.name_links": {
        "en": "Underline the names X-Ray knows (a tap opens their card)",
        "zh": "为 X-Ray 认识的名字加下划线（点按打开其卡片）",
    },
    "xray.fix.hide": {"en": "Hide", "zh": "隐藏"},
    "xray.fix.kind": {"en": "Kind", "zh": "类别"},
    "xray.fix.same_as": {"en": "Same as (a name)", "zh": "与此名字是同一个"},
    "xray.fix.rename": {"en": "Rename to", "zh": "改名为"},
    "xray.add": {"en": "Add a name X-Ray missed", "zh": "添加遗漏的名字"},
    "xray.added.later": {
        "en": "“{name}” is not in what you have read yet: it shows here once the book uses it.",
        "zh": "你读过的部分里还没有“{name}”：书中用到它之后就会出现在这里。",
    },
    "xray.hidden": {"en": "Hidden", "zh": "已隐藏"},
    "xray.show_again": {"en": "Show {name} again", "zh": "重新显示{name}"},
    "xray.unknown": {
        "en": "“{name}” is not among the names the book has used up to where you have read.",
        "zh": "截至你读到的地方，书中还没有提到“{name}”这个名字。",
    },
    "reader.previously": {"en": "Previously… the story so far", "zh": "前情回顾：到目前为止的故事"},
    "reader.who_is": {"en": "Who is this? (X-Ray)", "zh": "这是谁？（人物与名词）"},
    "reader.search": {"en": "Search in book", "zh": "书内搜索"},
    "reader.bookmark": {"en": "Bookmark", "zh": "书签"},
    "reader.highlight": {"en": "Highlight", "zh": "高亮"},
    "reader.note": {"en": "Note", "zh": "笔记"},
    "reader.note.add": {"en": "Highlight and add a note", "zh": "划线并写笔记"},
    "reader.percent": {"en": "{p}% read", "zh": "已读 {p}%"},
    "reader.percent.behind": {"en": "At {c}% · {p}% read", "zh": "当前 {c}% · 已读 {p}%"},
    "reader.back_to": {"en": "Back to where you were", "zh": "回到刚才的位置"},
    "reader.read_up_to_here": {"en": "I haven't read past here", "zh": "我只读到这里"},
    "reader.read_up_to_here.done": {
        "en": "Marked as read up to here ({p}%): the chat will not look further.",
        "zh": "已标记只读到这里（{p}%）：聊天不会看更后面的内容。",
    },
    "reader.search.ahead": {"en": "Ahead of where you've read · {chapter}", "zh": "尚未读到 · {chapter}"},
    "reader.read_to_here": {"en": "I've read up to here", "zh": "我已读到这里"},
    "reader.read_to_here.done": {
        "en": "Marked as read up to here ({p}%): the chat may now use what comes before.",
        "zh": "已标记读到这里（{p}%）：聊天现在可以参考此前的内容。",
    },
    "settings.title": {"en": "Settings", "zh": "设置"},
    "settings.unreadable": {
        "en": "Your settings file could not be read, so the defaults are in use. Local only is {state}. "
        "Check Settings and choose again.",
        "zh": "无法读取设置文件，已使用默认设置。“仅本地”为{state}。请到设置中重新选择。",
    },
    "settings.unreadable.on": {"en": "on, as it was", "zh": "开启（保持原样）"},
    "settings.unreadable.off": {"en": "off", "zh": "关闭"},
    "settings.theme": {"en": "Theme", "zh": "主题"},
    "settings.theme.system": {"en": "System", "zh": "跟随系统"},
    "settings.theme.light": {"en": "Light", "zh": "浅色"},
    "settings.theme.dark": {"en": "Dark", "zh": "深色"},
    "settings.theme.sepia": {"en": "Sepia", "zh": "护眼"},
    "settings.language": {"en": "Language", "zh": "语言"},
    "settings.font_size": {"en": "Font size", "zh": "字号"},
    "common.cancel": {"en": "Cancel", "zh": "取消"},
    "notes.vault": {"en": "Export to an Obsidian vault", "zh": "导出到 Obsidian 库"},
    "notes.vault.path": {"en": "The vault's folder", "zh": "Obsidian 库的文件夹"},
    "notes.vault.about": {
        "en": "A note per book. Exporting again updates Quire's part of each note and keeps what you wrote around it.",
        "zh": "每本书一篇笔记。再次导出只更新 Quire 写的部分，你在其外写的内容保持不变。",
    },
    "notes.vault.export": {"en": "Export", "zh": "导出"},
    "notes.vault.missing": {"en": "No such folder", "zh": "没有这个文件夹"},
    "notes.vault.missing.about": {
        "en": "There is no folder at {folder}. Check its name, or create it for the vault.",
        "zh": "{folder} 处没有文件夹。请检查名称，或为 Obsidian 库创建它。",
    },
    "notes.vault.create": {"en": "Create the folder", "zh": "创建该文件夹"},
    "notes.vault.done": {
        "en": "Notes written or updated in {folder}: {n}.",
        "zh": "已在 {folder} 写入或更新笔记：{n} 篇。",
    },
    "common.close": {"en": "Close", "zh": "关闭"},
    "common.save": {"en": "Save", "zh": "保存"},
    "color.yellow": {"en": "Yellow", "zh": "黄色"},
    "color.green": {"en": "Green", "zh": "绿色"},
    "color.blue": {"en": "Blue", "zh": "蓝色"},
    "color.pink": {"en": "Pink", "zh": "粉色"},
    "color.purple": {"en": "Purple", "zh": "紫色"},
    "library.all": {"en": "All", "zh": "全部"},
    "library.details": {"en": "Details", "zh": "详情"},
    "library.layout.grid": {"en": "Show covers", "zh": "封面视图"},
    "library.layout.list": {"en": "Show as list", "zh": "列表视图"},
    "library.no_match": {"en": "No title or author matches your search.", "zh": "没有书名或作者符合搜索。"},
    "library.open": {"en": "Open {title}", "zh": "打开《{title}》"},
    "library.read": {"en": "Read", "zh": "阅读"},
    "library.remove": {"en": "Remove book", "zh": "删除图书"},
    "library.sort": {"en": "Sort by", "zh": "排序"},
    "details.author": {"en": "Author", "zh": "作者"},
    "details.language": {"en": "Language", "zh": "语言"},
    "details.publisher": {"en": "Publisher", "zh": "出版者"},
    "details.format": {"en": "File", "zh": "文件"},
    "details.progress": {"en": "Reading", "zh": "阅读"},
    "details.title": {"en": "Title", "zh": "书名"},
    "details.save": {"en": "Save title and author", "zh": "保存书名和作者"},
    "details.saved": {"en": "Saved", "zh": "已保存"},
    "details.chars": {"en": "{n} characters", "zh": "{n} 字"},
    "details.reading": {"en": "{p}% read, {minutes} min", "zh": "已读 {p}%，{minutes} 分钟"},
    "details.index": {"en": "AI index", "zh": "AI 索引"},
    "details.index.none": {
        "en": "not indexed (keyword search works)",
        "zh": "尚未建立索引（关键词搜索可用）",
    },
    "details.index.done": {"en": "ready ({model})", "zh": "已完成（{model}）"},
    "details.index.partial": {"en": "{status}: {done} of {total} passages", "zh": "{status}：{done}/{total} 段"},
    "details.tags": {"en": "Tags", "zh": "标签"},
    "details.description": {"en": "Description", "zh": "简介"},
    "details.more": {"en": "… and {n} more", "zh": "……还有 {n} 项"},
    "details.warnings": {"en": "Import warnings", "zh": "导入警告"},
    "reader.appearance": {"en": "Appearance", "zh": "外观"},
    "reader.bookmark.added": {"en": "Bookmark added", "zh": "已添加书签"},
    "reader.bookmark.remove": {"en": "Remove bookmark", "zh": "删除书签"},
    "reader.bookmark.removed": {"en": "Bookmark removed", "zh": "已删除书签"},
    "reader.continue": {"en": "Continue reading", "zh": "继续阅读"},
    "reader.earlier": {"en": "Show earlier text", "zh": "显示前文"},
    "reader.continue.pictures": {"en": "Next pages", "zh": "后面的页面"},
    "reader.earlier.pictures": {"en": "Show earlier pages", "zh": "显示前面的页面"},
    "reader.highlight.color": {"en": "Highlight in {color}", "zh": "用{color}高亮"},
    "reader.highlight.menu": {"en": "This highlight", "zh": "这条高亮"},
    "reader.highlight.recolour": {"en": "Make it {color}", "zh": "改为{color}"},
    "reader.highlight.remove": {"en": "Delete highlight", "zh": "删除高亮"},
    "reader.highlight.removed": {"en": "Highlight deleted", "zh": "已删除高亮"},
    "reader.copy": {"en": "Copy", "zh": "复制"},
    "reader.no_text.xray": {
        "en": "This book is pictures only: there are no names to list.",
        "zh": "这本书只有图片，没有可列出的名字。",
    },
    "reader.no_text.search": {
        "en": "This book is pictures only (a comic or a scan): it has no text to search.",
        "zh": "这本书只有图片（漫画或扫描件），没有可搜索的文字。",
    },
    "reader.no_text.chat": {
        "en": "This book is pictures only (a comic or a scan): the AI reads text, so it cannot answer about it.",
        "zh": "这本书只有图片（漫画或扫描件）。AI 只能阅读文字，因此无法回答关于它的问题。",
    },
    "reader.copied": {"en": "Copied", "zh": "已复制"},
    "reader.share": {"en": "Share", "zh": "分享"},
    "reader.next": {"en": "Next page", "zh": "下一页"},
    "reader.previous": {"en": "Previous page", "zh": "上一页"},
    "reader.search.count": {"en": "{n} matches in {places} paragraphs", "zh": "{places} 个段落中共 {n} 处匹配"},
    "reader.search.more": {"en": "Show {n} more", "zh": "再显示 {n} 条"},
    "reader.search.none": {"en": "Nothing found for “{query}”.", "zh": "没有找到“{query}”。"},
    "reader.still_reading": {
        "en": "Quire is still reading this PDF: {read} of its {pages} pages are in, and the rest appears here when read.",
        "zh": "Quire 仍在读取这份 PDF：{pages} 页中已读入 {read} 页，其余读完后会出现在这里。",
    },
    "reader.still_reading.progress": {
        "en": "Reading page {page} of {pages}…",
        "zh": "正在读取第 {page} 页，共 {pages} 页……",
    },
    "reader.search.in_part": {
        "en": "Searched the first {read} of {pages} pages: the rest is still being read.",
        "zh": "已搜索前 {read} 页（共 {pages} 页）：其余的仍在读取。",
    },
    "reader.toc.empty": {"en": "This book has no table of contents.", "zh": "这本书没有目录。"},
    "notes.bookmarks": {"en": "Bookmarks", "zh": "书签"},
    "reader.goto": {"en": "Go to: 40% or 12.3", "zh": "跳转：40% 或 12.3"},
    "app.storage_error": {
        "en": "Quire cannot open your library",
        "zh": "Quire 无法打开你的书库",
    },
    "reader.removed": {
        "en": "'{title}' was removed from the library (in another window), so it was closed.",
        "zh": "《{title}》已从书库中移除（在另一个窗口），因此已关闭。",
    },
    "reader.not_here": {
        "en": "That address names a book that is not in this library: here is the library.",
        "zh": "该地址指向的书不在此书库中，已显示书库。",
    },
    "reader.goto.error": {
        "en": "Not a place in this book ({reason}). Write a percentage like 40% or a place like 12.3.",
        "zh": "无法跳转（{reason}）。请输入百分比如 40%，或位置如 12.3。",
    },
    "details.add_tag": {"en": "Add a tag", "zh": "添加标签"},
    "notes.title": {"en": "Notes", "zh": "笔记"},
    "notes.all": {"en": "All notes", "zh": "全部笔记"},
    "notes.add": {"en": "Add note", "zh": "添加笔记"},
    "notes.edit": {"en": "Edit note", "zh": "编辑笔记"},
    "notes.color": {"en": "Colour", "zh": "颜色"},
    "notes.count": {"en": "{n} highlights", "zh": "{n} 条高亮"},
    "notes.count.one": {"en": "1 highlight", "zh": "1 条高亮"},
    "notes.delete": {"en": "Delete highlight", "zh": "删除高亮"},
    "notes.empty": {
        "en": "No highlights yet. Select text while reading and pick a colour.",
        "zh": "还没有高亮。阅读时选中文字并选择颜色即可。",
    },
    "notes.shared": {"en": "Notes ready to share: {name}", "zh": "笔记已可分享：{name}"},
    "notes.export": {"en": "Export Markdown", "zh": "导出 Markdown"},
    "notes.exported": {"en": "Notes saved to {path}", "zh": "笔记已保存到 {path}"},
    "notes.open": {"en": "Open in the book", "zh": "在书中打开"},
    "settings.reading": {"en": "Reading", "zh": "阅读"},
    "settings.line_height": {"en": "Line spacing", "zh": "行距"},
    "settings.margins": {"en": "Margins", "zh": "页边距"},
    "settings.font": {"en": "Font", "zh": "字体"},
    "settings.font.serif": {"en": "Serif", "zh": "衬线"},
    "settings.font.sans-serif": {"en": "Sans", "zh": "无衬线"},
    "settings.font.monospace": {"en": "Mono", "zh": "等宽"},
    "settings.layout": {"en": "Layout", "zh": "版式"},
    "settings.layout.scroll": {"en": "Scroll", "zh": "滚动"},
    "settings.layout.paginated": {"en": "Pages", "zh": "分页"},
    "settings.writing": {"en": "Chinese and Japanese text", "zh": "中文和日文排版"},
    "settings.writing.book": {"en": "As the book", "zh": "跟随书籍"},
    "settings.writing.vertical": {"en": "Vertical", "zh": "竖排"},
    "settings.writing.horizontal": {"en": "Horizontal", "zh": "横排"},
    "settings.language.system": {"en": "Follow the system", "zh": "跟随系统"},
    "settings.ai": {"en": "AI assistant", "zh": "AI 助手"},
    "settings.provider": {"en": "Provider", "zh": "服务商"},
    "settings.provider.none": {"en": "None: quote the book", "zh": "无：引用书中原句"},
    "settings.provider.openai": {"en": "OpenAI", "zh": "OpenAI"},
    "settings.provider.openai-compatible": {"en": "Other (OpenAI-compatible)", "zh": "其他（兼容 OpenAI）"},
    "settings.provider.deepseek": {"en": "DeepSeek", "zh": "DeepSeek 深度求索"},
    "settings.provider.anthropic": {"en": "Anthropic (Claude)", "zh": "Anthropic（Claude）"},
    "settings.provider.ollama": {"en": "Ollama (on your computer)", "zh": "Ollama（在你的电脑上）"},
    "settings.model": {"en": "Model", "zh": "模型"},
    "settings.base_url": {"en": "Endpoint URL (optional)", "zh": "接口地址（可选）"},
    "settings.api_key": {"en": "API key", "zh": "API 密钥"},
    "settings.api_key.saved": {"en": "A key is saved in the system keychain", "zh": "密钥已保存在系统钥匙串中"},
    "settings.api_key.missing": {"en": "No key saved", "zh": "尚未保存密钥"},
    "settings.local_only": {"en": "Local only: never contact remote services", "zh": "仅本地：不连接任何远程服务"},
    "settings.spoilers": {"en": "Spoiler protection", "zh": "防剧透"},
    "inbox.title": {"en": "New books in Quire's folder: {n}", "zh": "Quire 文件夹里有 {n} 本新书"},
    "inbox.body": {
        "en": "Found in Files › On My iPhone › Quire: {names}. Import them into the library?",
        "zh": "在“文件 › 我的 iPhone › Quire”中找到：{names}。导入书库吗？",
    },
    "inbox.import": {"en": "Import", "zh": "导入"},
    "inbox.leave": {"en": "Don't import", "zh": "不导入"},
    "inbox.unavailable": {"en": "Could not look in Quire's folder: {reason}", "zh": "无法查看 Quire 文件夹：{reason}"},
    "settings.keep_screen_on": {"en": "Keep the screen on while reading", "zh": "阅读时屏幕常亮"},
    "settings.haptic_page_turns": {"en": "Vibrate lightly on page turns", "zh": "翻页时轻微振动"},
    "settings.auto_index": {"en": "Index books for AI after import", "zh": "导入后自动建立 AI 索引"},
    "import.waiting": {"en": "Waiting for the files you choose…", "zh": "正在等待所选文件…"},
    "import.progress": {"en": "Importing {n} of {total}: {name}", "zh": "正在导入 {n}/{total}：{name}"},
    "import.reading": {
        "en": "Importing {n} of {total}: {name}, page {page} of {pages}",
        "zh": "正在导入 {n}/{total}：{name}，第 {page}/{pages} 页",
    },
    "import.summary": {
        "en": "{new} imported, {known} already in your library, {failed} failed",
        "zh": "导入 {new} 本，{known} 本已在书库中，失败 {failed} 本",
    },
    "chat.title": {"en": "Ask the book", "zh": "问这本书"},
    "chat.ask": {"en": "Ask about this book…", "zh": "关于这本书，你想问……"},
    "chat.send": {"en": "Send", "zh": "发送"},
    "chat.stop": {"en": "Stop", "zh": "停止"},
    "chat.copy": {"en": "Copy", "zh": "复制"},
    "chat.copied": {"en": "Copied", "zh": "已复制"},
    "chat.regenerate": {"en": "Regenerate", "zh": "重新回答"},
    "chat.stopped": {"en": "Stopped", "zh": "已停止"},
    "chat.thinking": {"en": "Thinking", "zh": "思考过程"},
    "chat.tool": {"en": "Tool: {name}", "zh": "工具：{name}"},
    "chat.tool.args": {"en": "Arguments", "zh": "参数"},
    "chat.tool.result": {"en": "Result", "zh": "结果"},
    "chat.citation": {"en": "Open the book here: {quote}", "zh": "在书中打开：{quote}"},
    "chat.page": {"en": "p. {page}", "zh": "第 {page} 页"},
    "reader.page_view.on": {"en": "Show the pages as printed", "zh": "按原版页面显示"},
    "reader.page_view.off": {"en": "Show the text (reflowed)", "zh": "显示文字（重排）"},
    "reader.page_view.page": {"en": "Page {page} of {pages}", "zh": "第 {page} 页，共 {pages} 页"},
    "reader.page_view.missing": {
        "en": "This page cannot be drawn (the book's file is missing): show the text instead.",
        "zh": "无法显示此页（书的文件不见了）：请改为显示文字。",
    },
    "chat.in_part": {
        "en": "Answers come from the first {read} of this PDF's {pages} pages: the rest is still being read.",
        "zh": "回答只来自这份 PDF 的前 {read} 页（共 {pages} 页）：其余的仍在读取。",
    },
    "chat.empty": {"en": "Ask anything about what you have read.", "zh": "关于已读的内容，尽管问。"},
    "chat.thread.new": {"en": "New conversation", "zh": "新对话"},
    "chat.thread.menu": {"en": "Conversation", "zh": "对话"},
    "chat.thread.pick": {"en": "Conversations of this book", "zh": "本书的对话"},
    "chat.thread.rename": {"en": "Rename", "zh": "重命名"},
    "chat.thread.delete": {"en": "Delete", "zh": "删除"},
    "chat.thread.title": {"en": "Conversation title", "zh": "对话标题"},
    "chat.mode.offline": {"en": "Offline search", "zh": "离线搜索"},
    "chat.mode.local-only": {"en": "Local only", "zh": "仅本地"},
    "chat.mode.provider": {"en": "AI: {name}", "zh": "AI：{name}"},
    "chat.offline.hint": {
        "en": "No AI provider is set up: an answer quotes the sentences of the book that best match the question, "
        "each linked to its place. Ask with the words the book would use. Add a provider in Settings for written "
        "answers and summaries.",
        "zh": "尚未设置 AI 服务：回答会引用书中与问题最相符的句子，并链接到原文位置。请用书中可能出现的词语提问。"
        "在设置中添加 AI 服务即可获得完整回答和总结。",
    },
    "chat.index.none": {
        "en": "Not indexed yet: the chat searches by keywords meanwhile.",
        "zh": "尚未建立索引：在此之前按关键词搜索。",
    },
    "chat.index.running": {"en": "Indexing {done} of {total} passages…", "zh": "正在建立索引：{done}/{total} 段……"},
    "chat.index.done": {"en": "Indexed for meaning and keywords.", "zh": "已建立语义和关键词索引。"},
    "chat.index.failed": {"en": "Indexing stopped: {reason}", "zh": "索引中断：{reason}"},
    "chat.index.cancelled": {"en": "cancelled", "zh": "已取消"},
    "chat.index.partial": {"en": "Partly indexed: {done} of {total} passages.", "zh": "部分索引：{done}/{total} 段。"},
    "chat.index.start": {"en": "Index now", "zh": "立即索引"},
    "chat.index.cancel": {"en": "Cancel", "zh": "取消"},
    "chat.suggest.summary": {"en": "Summarise {chapter}", "zh": "总结{chapter}"},
    "chat.suggest.so_far": {"en": "Summarise what I have read so far", "zh": "总结我目前读过的内容"},
    "chat.suggest.recap": {"en": "The story so far", "zh": "前情回顾"},
    "chat.suggest.characters": {"en": "Who are the main characters so far?", "zh": "目前为止主要人物有哪些？"},
    "chat.suggest.offline.where": {"en": "Where else is “{passage}” mentioned?", "zh": "书中还有哪里提到“{passage}”？"},
    "chat.suggest.explain": {"en": "Explain this passage: “{passage}”", "zh": "解释这段文字：“{passage}”"},
    "reader.ask": {"en": "Ask about this", "zh": "问问这段"},
    "settings.temperature": {"en": "Temperature (0 = focused, 1 = creative)", "zh": "温度（0 专注，1 发散）"},
    "settings.test": {"en": "Test connection", "zh": "测试连接"},
    "settings.provider.save": {"en": "Save AI provider", "zh": "保存 AI 服务"},
    "settings.embedder.save": {"en": "Save search service", "zh": "保存搜索服务"},
    "settings.testing": {"en": "Testing the connection…", "zh": "正在测试连接……"},
    "settings.api_key.remove": {"en": "Forget the key", "zh": "删除密钥"},
    "settings.embeddings": {"en": "Search index", "zh": "搜索索引"},
    "settings.embedder": {"en": "Embeddings", "zh": "向量模型"},
    "settings.embedder.device": {"en": "On this device (by the book's language)", "zh": "本机（按书的语言选择）"},
    "settings.embedder.openai": {"en": "OpenAI-compatible endpoint", "zh": "OpenAI 兼容接口"},
    "settings.embedder.ollama": {"en": "Ollama", "zh": "Ollama"},
    "settings.models": {"en": "On-device models", "zh": "本机模型"},
    "sync.title": {"en": "Sync", "zh": "同步"},
    "sync.about": {
        "en": "Your places, highlights, notes, bookmarks and tags (and the books themselves, if you like) travel "
        "between your devices through a WebDAV folder (Nextcloud, a NAS…) or a folder another program syncs. "
        "Settings, keys and chats stay on each device.",
        "zh": "阅读位置、高亮、笔记、书签和标签（也可包括书本身）通过 WebDAV 文件夹（Nextcloud、NAS 等）"
        "或由其他程序同步的文件夹在设备间同步。设置、密钥和对话留在各自的设备上。",
    },
    "sync.target": {"en": "WebDAV address or folder", "zh": "WebDAV 地址或文件夹"},
    "sync.target.hint": {
        "en": "https://cloud.example.com/remote.php/dav/files/me/Quire",
        "zh": "https://网盘地址/Quire",
    },
    "sync.user": {"en": "User name", "zh": "用户名"},
    "sync.password": {"en": "Password", "zh": "密码"},
    "sync.password.kept": {"en": "Kept in the system's secret store", "zh": "已保存在系统的安全存储中"},
    "sync.book_files": {"en": "Sync the book files too", "zh": "同时同步书籍文件"},
    "sync.save": {"en": "Save and check", "zh": "保存并检查"},
    "sync.now": {"en": "Sync now", "zh": "立即同步"},
    "sync.checking": {"en": "Checking…", "zh": "正在检查……"},
    "sync.create": {"en": "Create the folder", "zh": "创建该文件夹"},
    "sync.running": {"en": "Syncing…", "zh": "正在同步……"},
    "sync.ready": {
        "en": "Ready: Quire syncs when you open or close a book.",
        "zh": "已就绪：打开或合上书时会自动同步。",
    },
    "sync.done": {"en": "Synced at {when}: {what}.", "zh": "{when} 已同步：{what}。"},
    "list.sep": {"en": ", ", "zh": "，"},  # between the items of a list in a sentence
    "sync.sent": {"en": "sent {n} change(s)", "zh": "发送 {n} 项更改"},
    "sync.received": {"en": "received {n}", "zh": "收到 {n} 项"},
    "sync.books": {"en": "{n} book file(s)", "zh": "{n} 个书籍文件"},
    "sync.warnings": {
        "en": "({n} file(s) in the folder were not Quire's and were skipped.)",
        "zh": "（文件夹中有 {n} 个非 Quire 文件，已跳过。）",
    },
    "settings.model.for": {"en": "Search model for {languages} books", "zh": "用于{languages}书籍的搜索模型"},
    "settings.model.lang.en": {"en": "English", "zh": "英文"},
    "settings.model.lang.zh": {"en": "Chinese", "zh": "中文"},
    "settings.model.lang.*": {"en": "any language's", "zh": "任何语言"},
    "settings.model.ready": {"en": "Ready on this device", "zh": "已在本机就绪"},
    "settings.model.missing": {"en": "Not downloaded", "zh": "尚未下载"},
    "settings.model.download": {"en": "Download", "zh": "下载"},
    "settings.model.downloading": {"en": "Downloading… {done} MB", "zh": "正在下载……{done} MB"},
    "settings.model.downloaded": {"en": "Downloaded", "zh": "已下载"},
    "settings.books_index": {"en": "Books", "zh": "图书"},
    "import.refused": {"en": "Could not import {name}: {reason}", "zh": "无法导入 {name}：{reason}"},
    "import.done": {"en": "Imported {title}", "zh": "已导入《{title}》"},
    "import.duplicate": {"en": "{title} is already in your library", "zh": "《{title}》已在书库中"},
    # Core errors by type (Translator.error): what went wrong and what to do, in the reader's language.
    "error.QuireError": {"en": "Something went wrong.", "zh": "出了点问题。"},
    "error.BookFormatError": {
        "en": "The file cannot be read as a book. Try another copy of it.",
        "zh": "无法把这个文件读成一本书。请换一个副本试试。",
    },
    "error.DrmProtectedError": {
        "en": "This book is locked with DRM, so its text cannot be read. Import a DRM-free copy.",
        "zh": "这本书有 DRM 加密，无法读取正文。请导入无 DRM 的版本。",
    },
    "error.BookNotFoundError": {
        "en": "That book is no longer in the library.",
        "zh": "书库中已没有这本书。",
    },
    "error.LocatorError": {"en": "That place is not in this book.", "zh": "书中没有这个位置。"},
    "error.LibraryError": {
        "en": "The library cannot be read or saved. Check the free space and the folder's permissions.",
        "zh": "无法读写书库。请检查磁盘空间和文件夹权限。",
    },
    "error.IndexCancelled": {
        "en": "Indexing was stopped; it goes on from where it stopped next time.",
        "zh": "索引已停止，下次会从停下的地方继续。",
    },
    "error.EmbeddingError": {
        "en": "The book could not be indexed for meaning; keyword search still works.",
        "zh": "无法为这本书建立语义索引；关键词搜索仍可使用。",
    },
    "error.ModelUnavailableError": {
        "en": "The search model is not on this device and cannot be downloaded now. Connect and try again.",
        "zh": "本机没有搜索模型，现在也无法下载。请联网后重试。",
    },
    "error.ProviderError": {
        "en": "The AI provider did not answer. Check its address and key in Settings, then try again.",
        "zh": "AI 服务没有响应。请在设置中检查地址和密钥，然后重试。",
    },
    "error.EmbeddingProviderError": {
        "en": "The embedding service did not answer. Check its address and key in Settings, then try again.",
        "zh": "向量服务没有响应。请在设置中检查地址和密钥，然后重试。",
    },
    "error.StreamCut": {
        "en": "The answer was cut off before it ended; what arrived is kept. Ask again to get the rest.",
        "zh": "回答在结束前中断了，已收到的内容已保留。再问一次即可获得其余部分。",
    },
    "error.LocalOnlyError": {
        "en": "Local-only mode is on, so Quire contacts no other computer. Turn it off in Settings to use this.",
        "zh": "已开启仅本地模式，Quire 不会连接其他计算机。如需使用，请在设置中关闭。",
    },
    "error.SecretStoreError": {
        "en": "The system keyring could not be used. Install or unlock one (GNOME Keyring, KWallet) and try again.",
        "zh": "无法使用系统钥匙串。请安装或解锁一个（如 GNOME Keyring、KWallet）后重试。",
    },
    "error.SyncError": {
        "en": "Sync did not finish. Nothing here was lost; the next sync goes on from where this one stopped.",
        "zh": "同步未完成。本机内容没有丢失，下次同步会从中断处继续。",
    },
    "error.SyncUnavailable": {
        "en": "The sync folder or server cannot be reached now. Check the connection (or the drive) and sync again.",
        "zh": "现在无法访问同步文件夹或服务器。请检查网络（或磁盘）后再同步。",
    },
    "error.SyncFolderMissing": {
        "en": "There is no sync folder there yet. Create it with “Create the folder”, or check the address.",
        "zh": "那里还没有同步文件夹。点“创建该文件夹”来创建，或检查地址。",
    },
    "error.SyncRefused": {
        "en": "The sync server refused the user name or password. Enter them again in Settings → Sync.",
        "zh": "同步服务器拒绝了用户名或密码。请在“设置 → 同步”中重新输入。",
    },
    "error.SyncStorageFull": {
        "en": "The sync folder or server is full. Free some space there, or turn off syncing book files.",
        "zh": "同步文件夹或服务器已满。请腾出空间，或关闭同步书籍文件。",
    },
    "error.CatalogError": {
        "en": "The catalog or server could not be used. Check its address and that it is running, then try again.",
        "zh": "无法使用该书目或服务器。请检查地址并确认它正在运行，然后重试。",
    },
    "error.KosyncError": {
        "en": "The KOReader sync server could not be used. Check its address and that it is running, then try again.",
        "zh": "无法使用 KOReader 同步服务器。请检查地址并确认它正在运行，然后重试。",
    },
    "error.KosyncRefused": {
        "en": "The KOReader sync server refused the user name or password. Enter them again in Settings.",
        "zh": "KOReader 同步服务器拒绝了用户名或密码。请在“设置”中重新输入。",
    },
    "error.VaultFolderMissing": {
        "en": "There is no folder there. Check its name, or create it.",
        "zh": "那里没有文件夹。请检查名称，或创建它。",
    },
    "error.XrayCorrectionError": {
        "en": "X-Ray cannot keep that: a name is 1 to 200 characters, a kind is person, place or term, and a name is "
        "not the same as itself.",
        "zh": "X-Ray 无法保存这项更正：名字应为 1 到 200 个字符，类别只能是人物、地点或名词，且名字不能与自身合并。",
    },
    "error.CatalogRefused": {
        "en": "The catalog or server refused the user name or password. Enter them again in Settings.",
        "zh": "书目或服务器拒绝了用户名或密码。请在“设置”中重新输入。",
    },
    "error.ReadwiseError": {
        "en": "Readwise could not take the highlights now. What was sent stays sent; try again later.",
        "zh": "Readwise 暂时无法接收标注。已发送的不会重复发送；请稍后再试。",
    },
    "error.ReadwiseRefused": {
        "en": "Readwise refused the access token. Get a new one at readwise.io/access_token and enter it in Settings.",
        "zh": "Readwise 拒绝了访问令牌。请在 readwise.io/access_token 获取新令牌，并在“设置”中输入。",
    },
    "error.SyncFileTooLarge": {
        "en": "A file in the sync folder is far larger than Quire writes there, so it was left unread. "
        "Remove it from the sync folder if you do not know it.",
        "zh": "同步文件夹中有个文件远大于 Quire 会写入的大小，已跳过未读。如果不认识它，请从同步文件夹中删除。",
    },
    "error.StepLimit": {
        "en": "The question took too many steps and was stopped. Try a narrower question.",
        "zh": "这个问题需要的步骤太多，已停止。请换一个更具体的问题。",
    },
    "chat.fence.book": {
        "en": "Used {title} up to {place}, {percent}%: where you have read to",
        "zh": "只用了《{title}》你读过的部分：到 {place}（{percent}%）",
    },
    "chat.fence.searched": {
        "en": "{n} books searched, each only up to where you have read it",
        "zh": "搜索了 {n} 本书，每本只到你读到的地方",
    },
    "chat.fence": {
        "en": "Used the book up to {place}, {percent}%: where you have read to",
        "zh": "只用了你读过的部分：到 {place}（{percent}%）",
    },
    "chat.fence.sent": {"en": "Sent to the AI: passages at {places}", "zh": "发送给 AI 的段落：{places}"},
    "chat.fence.none": {
        "en": "Used nothing of the book: nothing counts as read yet",
        "zh": "没有使用书中内容：还没有任何部分算作已读",
    },
    "error.ProviderUnreachable": {
        "en": "The AI provider could not be reached, so this answer is from the book alone, offline.",
        "zh": "无法连接 AI 服务，以下是仅根据书中内容给出的离线回答。",
    },
    "error.NotAnswered": {
        "en": "What you have read so far does not seem to answer this. The closest passages:",
        "zh": "你目前读过的部分似乎没有回答这个问题。最接近的段落：",
    },
    "error.MightAnswer": {
        "en": "What you have read may answer this, but it is not certain. The passages that come closest:",
        "zh": "你目前读过的部分可能回答了这个问题，但不能确定。最接近的段落：",
    },
    "error.NotStarted": {
        "en": "Nothing of this book counts as read yet, and spoiler protection is on, so nothing may be shown. A page "
        "counts once it has been on screen long enough to read; pages flipped through quickly, or reached by a jump, "
        "do not. Read on a little, tap “I've read up to here”, or turn spoiler protection off.",
        "zh": "这本书还没有任何部分算作已读，且已开启防剧透，所以暂时没有可显示的内容。页面在屏幕上停留到足以读完才算已读；"
        "快速翻过或跳转到的页面不算。继续读一点、点“我已读到这里”，或关闭防剧透。",
    },
    "error.NothingFound": {
        "en": "Nothing in the part of the book you have read matches the question. Try the words the book would use.",
        "zh": "你已读的部分中没有与问题相符的内容。试试书中可能用到的词语。",
    },
    "error.NoneStarted": {
        "en": "You have not started any book and spoiler protection is on, so nothing may be shown yet. "
        "Read a little, or turn spoiler protection off.",
        "zh": "你还没开始读任何一本书，且已开启防剧透，所以暂时没有可显示的内容。先读一点，或关闭防剧透。",
    },
    "error.NothingFoundInLibrary": {
        "en": "Nothing you have read in your books matches the question. Try the words the books would use.",
        "zh": "你读过的书中没有与问题相符的内容。试试书中可能用到的词语。",
    },
    "error.CitationError": {"en": "The quote is not in the book.", "zh": "书中找不到这段引文。"},
}


def system_language(environ: dict[str, str] | None = None) -> str:
    """'zh' when the system speaks Chinese, else 'en'."""
    environ = dict(os.environ) if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    code = (locale.getlocale()[0] or "") if environ is os.environ else ""
    return "zh" if code.lower().startswith("zh") else "en"


class Translator:
    """Looks strings up in the reader's language, falling back to English, then to the key."""

    def __init__(self, language: str = "system") -> None:
        self.language = system_language() if language == "system" else language
        if self.language not in LANGUAGES:
            self.language = "en"

    def __call__(self, key: str, **values: object) -> str:
        entry = STRINGS.get(key)
        if entry is None:
            return key
        return entry.get(self.language, entry["en"]).format(**values)

    def error(self, error: BaseException) -> str:
        """A core error in the reader's language, by its type (the nearest translated base type).

        In English the core's own message follows, since it names the file or the endpoint; other languages get
        the translated sentence only, never English inside a Chinese interface.
        """
        return self.error_named(type(error).__name__, str(error))

    def error_named(self, name: str, detail: str = "", *, sentence_in_english: bool = True) -> str:
        """``error`` for an error known by its type's name (an answer's stored error part)."""
        from core import errors

        kind = getattr(errors, name, None)
        names = [k.__name__ for k in kind.__mro__] if isinstance(kind, type) else [name]
        key = next((f"error.{n}" for n in names if f"error.{n}" in STRINGS), "error.QuireError")
        detail = detail.strip()
        if self.language != "en" or not detail:
            return self(key)
        return f"{self(key)} ({detail})" if sentence_in_english else detail

    def count(self, n: int) -> str:
        """'1 book' / '3 books' (Chinese has no plural)."""
        return self("library.count.one" if n == 1 else "library.count.many", n=n)

    def plural(self, key: str, n: int) -> str:
        """``key`` with ``n``, in its ``.one`` form for one ("1 session", "3 sessions")."""
        return self(f"{key}.one" if n == 1 and f"{key}.one" in STRINGS else key, n=n)

    def duration(self, seconds: float) -> str:
        """'2 h 05 min', '12 min' or 'under a minute' (both languages)."""
        minutes = round(seconds / 60)
        if minutes < 1:
            return self("stats.under_minute")
        if minutes >= 60:
            return self("stats.hours", h=minutes // 60, m=f"{minutes % 60:02d}")
        return self("stats.minutes", m=minutes)
