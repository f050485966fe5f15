#!/usr/bin/env python3
"""Every file path a document names exists in the source tree.

A path is a `backticked` token with a '/' in it (taken from the repository
root) or a bare file name with a source extension (found anywhere in the
tree). Tokens with placeholders (<m>, *) or spaces are not paths.

usage: docs_paths_test.py ROOT DOC...
exit: 0 when every path exists, 1 naming those that do not.
"""
import os
import re
import sys

EXTENSIONS = ('.c', '.h', '.cu', '.cl', '.py', '.md', '.build', '.in', '.sh', '.json')
SKIP_DIRS = {'.git', 'build', 'subprojects', '__pycache__'}


def tree_basenames(root):
    names = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith('build')]
        names.update(files)
    return names


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    root, docs = sys.argv[1], sys.argv[2:]
    basenames = tree_basenames(root)
    missing, checked = [], 0
    for doc in docs:
        with open(doc, encoding='utf-8') as f:
            text = f.read()
        for tok in re.findall(r'`([^`\n]+)`', text):
            if any(c in tok for c in ' <>*()') or tok[0] in '-._':
                continue
            if '/' in tok:
                checked += 1
                if not os.path.exists(os.path.join(root, tok)):
                    missing.append((doc, tok))
            elif tok.endswith(EXTENSIONS):
                checked += 1
                if tok not in basenames:
                    missing.append((doc, tok))
    for doc, tok in missing:
        print(f'{os.path.relpath(doc, root)}: `{tok}` does not exist')
    print(f'{checked} paths checked, {len(missing)} missing')
    if checked == 0:
        print('no path found: the extraction is broken')
        return 1
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
