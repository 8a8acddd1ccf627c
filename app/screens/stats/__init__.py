"""The statistics screen."""
