"""What the plotting scripts share, so that a mistake costs one line and an exit status of 1
rather than a traceback or an image under another name: matplotlib itself, the image's name,
checked before any work (matplotlib appends .png to a name without an extension), the text of
herd's outputs, and the image written."""

import os
import sys
import tempfile


def pyplot():
    """matplotlib.pyplot, drawing to files (no display needed); a Python without matplotlib ends
    the script with a line saying what to install."""
    try:
        import matplotlib
    except ImportError:
        sys.exit(f"{os.path.basename(sys.argv[0])}: {sys.executable} has no matplotlib: run the script with a Python "
                 f"that has it (Debian: apt install python3-matplotlib, then /usr/bin/python3 {sys.argv[0]} ...)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def checked_output(path, inputs):
    """`path`, the image to write, once checked: a folder, a missing folder, a name matplotlib
    writes no image under, or one of the script's `inputs` (by any name: its data would be lost)
    end the script."""
    from matplotlib.backend_bases import FigureCanvasBase  # after pyplot(), which checked for it

    if os.path.isdir(path):
        sys.exit(f"{path}: a folder, not an image file")
    for given in inputs:
        try:
            same = os.path.samefile(given, path)
        except OSError:  # either missing: the input's own check names it
            same = False
        if same:
            sys.exit(f"{path}: is the input {given}: the image would replace it")
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
    """Writes the image beside `path` under a temporary name and renames it into place: a write that
    fails (a full disk) leaves an earlier image of that name as it was, and no partial file."""
    target = os.path.realpath(path)  # a link's file, not the link
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    try:
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.",
                                             suffix=f".{extension}")
    except OSError as error:
        sys.exit(f"{path}: {error.strerror}")
    try:
        with os.fdopen(handle, "wb") as f:
            figure.savefig(f, format=extension, **options)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temporary, 0o666 & ~mask)  # as a file made by open(), not mkstemp's 0600
        os.replace(temporary, target)
    except Exception as error:  # noqa: BLE001 - matplotlib's writers fail on a full disk with errors of their own
        try:
            os.unlink(temporary)
        except OSError:
            pass
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error) or type(error).__name__
        sys.exit(f"{path}: cannot write the image ({reason})")
