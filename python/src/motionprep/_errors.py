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


class ConsistencyError(DatasetError):
    """The dataset breaks a consistency rule of docs/validate.md ("Consistency rules": C1, C2, C4, C5 or
    C6) although its checksums agree (``verify=True``): a tool bug, or a hand edit after which the sums
    were recomputed. The message names the rule, the file and the window or key path."""
