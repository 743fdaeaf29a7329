"""The image a plotting script writes, checked before any work: an extension matplotlib does not
write, or a folder, costs one line and an exit status of 1 rather than a traceback or an image
under another name (matplotlib appends .png to a name without an extension)."""

import os
import sys

from matplotlib.backend_bases import FigureCanvasBase


def checked_output(path):
    if os.path.isdir(path):
        sys.exit(f"{path}: a folder, not an image file")
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if extension not in formats:
        sys.exit(f"{path}: not an image name matplotlib writes (give one of .{', .'.join(sorted(formats))})")
    return path
