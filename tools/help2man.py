#!/usr/bin/env python3
"""exactvmaf.1 from `exactvmaf --help`, so that the manual and the help text
cannot drift: the build runs the tool and writes the page.

Sections: the first line of a paragraph that starts at column 0 with a few
words and a colon becomes a section (those words, upper-cased, the heading;
the rest of the line starts the section's text); option lines (' -x, --long ARG   text' or
'     --long ARG   text') become tagged paragraphs, their continuation lines
(indented to the text column) joined to them; other lines are kept as they
are (.nf) so that tables keep their columns.

usage: help2man.py OUTPUT [WRAPPER...] EXACTVMAF
(WRAPPER: what runs a cross-built tool, e.g. qemu-aarch64 -L SYSROOT)
"""
import re, subprocess, sys

OPTION = re.compile(r'^ (?:(-\w), |    )(--[\w-]+(?:[ =][^ ].*?)?)(?:  +(.*))?$')


def roff(s):
    s = s.replace('\\', '\\e')
    s = re.sub(r"^([.'])", r'\\&\1', s)
    return s.replace('-', '\\-')


def main():
    out, exe = sys.argv[1], sys.argv[2:]
    text = subprocess.run(exe + ['--help'], capture_output=True, text=True, check=True).stdout
    version = subprocess.run(exe + ['--version'], capture_output=True, text=True).stderr.strip()
    lines = text.splitlines()
    page = ['.TH EXACTVMAF 1 "" "%s" "User Commands"' % roff(version or 'exactvmaf'),
            '.SH NAME', 'exactvmaf \\- VMAF, bit-exact with Netflix libvmaf on every backend',
            '.SH SYNOPSIS', '.B exactvmaf', '[\\fIoptions\\fR]']
    i = 0
    # The first paragraph after the usage line is the description.
    while i < len(lines) and not lines[i].startswith('Usage:'):
        i += 1
    i += 1
    page.append('.SH DESCRIPTION')
    opt = None
    prev_blank = True
    for line in lines[i:]:
        after_blank, prev_blank = prev_blank, not line.strip()
        m = OPTION.match(line)
        if m:
            short, long_, rest = m.groups()
            page.append('.TP')
            page.append('\\fB%s\\fR' % roff((short + ', ' if short else '') + long_))
            page.append(roff(rest or ''))
            opt = True
            continue
        if opt and line.startswith(' ' * 20) and line.strip():
            page.append(roff(line.strip()))
            continue
        opt = None
        if after_blank and line and not line.startswith(' ') and ':' in line and \
                line.split(':', 1)[0].count(' ') < 4:
            head, rest = line.split(':', 1)
            page.append('.SH %s' % roff(head.upper()))
            if rest.strip():
                page.append(roff(rest.strip()))
            continue
        if not line.strip():
            page.append('.PP')
        elif line.startswith(' '):
            page.extend(['.nf', roff(line), '.fi'])
        else:
            page.append(roff(line))
    page += ['.SH SEE ALSO', 'The README and docs/ of exactvmaf; Netflix libvmaf\'s vmaf(1) tool, '
             'whose options this tool takes.']
    open(out, 'w').write('\n'.join(page) + '\n')


if __name__ == '__main__':
    main()
