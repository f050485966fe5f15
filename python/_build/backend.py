"""PEP 517 backend for `pip install ./python`: meson-python, run on the
meson project at the repository's root (meson-python builds the project
whose meson.build sits beside the pyproject.toml it reads)."""
import contextlib
import os

import mesonpy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@contextlib.contextmanager
def _at_root():
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(here)


def _forward(name):
    def hook(*args, **kwargs):
        # Output folders pip names relative to its own directory stay its.
        args = tuple(os.path.abspath(a) if isinstance(a, str) else a for a in args)
        with _at_root():
            return getattr(mesonpy, name)(*args, **kwargs)
    hook.__name__ = name
    return hook


for _name in ('build_wheel', 'build_sdist', 'get_requires_for_build_wheel',
              'get_requires_for_build_sdist', 'prepare_metadata_for_build_wheel',
              'build_editable', 'get_requires_for_build_editable',
              'prepare_metadata_for_build_editable'):
    if hasattr(mesonpy, _name):
        globals()[_name] = _forward(_name)
