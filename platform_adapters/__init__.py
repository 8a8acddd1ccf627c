"""Platform adapters: paths, secrets, capabilities and file access, one implementation per platform."""

from platform_adapters.base import AppPaths, Capabilities, FileAccess, PickedFile, Platform, SecretStore

__all__ = ["AppPaths", "Capabilities", "FileAccess", "PickedFile", "Platform", "SecretStore", "current_platform"]


def current_platform() -> Platform:
    """The adapters for the platform this process runs on (desktop for now; mobile and web come with the app)."""
    from platform_adapters.desktop import desktop_platform

    return desktop_platform()
