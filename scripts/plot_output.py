"""What the plotting scripts share, so that a mistake costs one line and an exit status of 1
rather than a traceback or an image under another name: the image's name, checked before any work
(matplotlib appends .png to a name without an extension), the text of herd's outputs, and the
image written."""

import os
import sys

from matplotlib.backend_bases import FigureCanvasBase


def checked_output(path):
    if os.path.isdir(path):
        sys.exit(f"{path}: a folder, not an image file")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        sys.exit(f"{path}: no folder {folder}")
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if extension not in formats:
        sys.exit(f"{path}: not an image name matplotlib writes (give one of .{', .'.join(sorted(formats))})")
    return path


def read_text(path, what):
    """The text of `path`, which should hold `what` (e.g. "a herd time series"): a file that cannot
    be read, or a binary one (an HDF5 output given for a text one), ends the script."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        sys.exit(f"{path}: {error.strerror}")
    if data.startswith(b"\x89HDF"):
        sys.exit(f"{path}: an HDF5 file, not {what}")
    try:
        return data.decode("utf-8-sig")  # a spreadsheet's byte-order mark, if any, goes
    except UnicodeDecodeError:
        sys.exit(f"{path}: not text, so not {what}")


def save(figure, path, **options):
    try:
        figure.savefig(path, **options)
    except OSError as error:
        sys.exit(f"{path}: {error.strerror}")
