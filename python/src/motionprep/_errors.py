"""The errors the package raises for a dataset it cannot read."""
from __future__ import annotations


class DatasetError(Exception):
    """A folder that cannot be read as a motionprep dataset; the message names the file and what is wrong."""


class NotADatasetError(DatasetError):
    """The folder has no readable motionprep manifest.json (not a dataset, or an unfinished run)."""


class FormatVersionError(DatasetError):
    """The manifest's format_version is not the one this package reads (2)."""


class ChecksumError(DatasetError):
    """A data file is missing or its SHA-256 differs from SHA256SUMS / the manifest (``verify=True``)."""
