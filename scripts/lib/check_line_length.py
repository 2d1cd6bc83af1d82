#!/usr/bin/env python3
"""Fails on any Swift line of MAX or more characters (Unicode characters, not bytes) below the given folders.

usage: check_line_length.py --max 140 [--allow FILE]... FOLDER...

An allowed file may still hold long lines (they are counted, not listed); one that no longer
does is named so it can leave the allow-list.
"""
import argparse
import os
import sys


def swift_files(folder):
    for directory, subdirectories, files in os.walk(folder):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith('.'))
        for name in sorted(files):
            if name.endswith('.swift'):
                yield os.path.join(directory, name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--max', type=int, required=True, help='the first line length refused')
    parser.add_argument('--allow', action='append', default=[], help='a file tolerated for now')
    parser.add_argument('folders', nargs='+')
    args = parser.parse_args()
    allowed = {os.path.normpath(a): 0 for a in args.allow}
    offenders = 0
    for folder in args.folders:
        for path in swift_files(folder):
            with open(path, encoding='utf-8') as f:
                for number, line in enumerate(f, 1):
                    length = len(line.rstrip('\n'))
                    if length < args.max:
                        continue
                    if os.path.normpath(path) in allowed:
                        allowed[os.path.normpath(path)] += 1
                        continue
                    offenders += 1
                    print(f'{path}:{number}: {length} characters (the limit is {args.max - 1})')
    for path, count in sorted(allowed.items()):
        if count:
            print(f'note: {path} is allow-listed with {count} long line(s)')
        elif os.path.exists(path):
            print(f'note: {path} has no long line any more: take it off the allow-list')
    if offenders:
        print(f'{offenders} Swift line(s) of {args.max} characters or more', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
