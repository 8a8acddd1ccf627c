"""Platform adapters: paths, secrets, capabilities and file access, one implementation per platform."""

from platform_adapters.base import AppPaths, Capabilities, FileAccess, PickedFile, Platform, SecretStore

__all__ = ["AppPaths", "Capabilities", "FileAccess", "PickedFile", "Platform", "SecretStore", "current_platform"]


def current_platform() -> Platform:
    """The adapters for this process: a packaged app's Flet storage folders, else the desktop's folders.

    Phones replace the secret store with secure storage once the app has a page (see ``main.py``).
    """
    from platform_adapters.desktop import desktop_platform
    from platform_adapters.mobile import FletStoragePaths, is_packaged_app, phone_os

    platform = desktop_platform()
    name = phone_os() or ("packaged" if is_packaged_app() else None)
    if name is None:
        return platform
    paths = FletStoragePaths() if is_packaged_app() else platform.paths
    return Platform(name, paths, platform.secrets, platform.capabilities, platform.files)
