#!/usr/bin/env python3
"""Keeps the README and docs/ true to the binary: every `recipe …` command they show is checked.

For every ```sh block of README.md and docs/*.md, each command line that starts with `recipe`
(and each `recipe …` command quoted inside another command, such as `git config … 'recipe diff
--git'`) is checked against the built binary's own description of itself
(`recipe --experimental-dump-help`, swift-argument-parser's JSON):

- the subcommand exists;
- every option and flag it uses is one that subcommand accepts, and every option that takes a
  value is given one.

Then the commands that can run on the bundled files are run, in the order the page shows them,
in a temporary folder holding copies of Recipes/, Grammar/ and the test DNGs of
Tests/Fixtures/raw: a command runs when every photo, recipe or folder it reads exists there (so `recipe render Recipes/photos/Landscape_1.jpg …` runs,
`recipe render IMG_0001.CR2 …` is only checked). `mkdir` and `cp` lines of the same blocks run
too, and a ```yaml block right after a line saying "Save this as `NAME`" is written to NAME first.
A command that runs must exit 0 (`diff`, whose answer "they differ" is 1, may exit 0 or 1).
`recipe preview` (a server) is never run.

    python3 Tests/docs/test_readme_commands.py              (RECIPE_BIN: the binary, default .build/debug/recipe)
    python3 Tests/docs/test_readme_commands.py --self-test  (shows that a wrong flag is caught)
    python3 Tests/docs/test_readme_commands.py FILE.md …    (only these pages; -v lists each command)

Exit 0 when every command passes, 1 otherwise, with one line per failure naming the page and
line.
"""
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("RECIPE_BIN", os.path.join(ROOT, ".build/debug/recipe"))
TIMEOUT = 600  # seconds a command may take (a debug build renders slowly)
VERBOSE = False  # -v: say for every command whether it was run or only checked

# Subcommands whose examples may run in the scratch folder (never `preview`: it serves forever).
RUNNABLE = {"render", "check", "fmt", "explain", "ops", "info", "schema", "edit", "history",
            "revert", "apply", "diff", "migrate", "relink", "merge-file"}
# Options whose value is a file or folder the command reads (it must exist for the command to run).
READ_OPTIONS = {"--recipe", "--photo", "--add", "--foreign", "--rendered", "--from"}
# Exit statuses that are an answer, not a failure.
ALLOWED_STATUS = {"diff": {0, 1}}
# Shell words that end a command's own arguments.
SHELL_STOPS = {">", ">>", "|", "||", "&&", ";", "2>", "2>&1", "<"}
# Command lines of other tools in the same blocks that the test runs, to set the scene.
SCENE_COMMANDS = {"mkdir", "cp"}

PATHLIKE = re.compile(r"(/|\.(jpe?g|png|tiff?|webp|heic|heif|hif|avif|dng|cr2|cr3|nef|arw|raf|orf|rw2|pef|yaml|yml|cube|icc)$)", re.I)


def dump_help():
    """{subcommand: {"--long"/"-s": takes_value}} from the binary's ArgumentParser dump."""
    out = subprocess.run([BIN, "--experimental-dump-help"], capture_output=True, text=True, check=True).stdout
    root = json.loads(out)["command"]
    commands = {}

    def names(command):
        table = {"--help": False, "-h": False}
        for argument in command.get("arguments", []):
            if argument.get("kind") == "positional":
                continue
            takes_value = argument.get("kind") == "option"
            for name in argument.get("names", []):
                prefix = "-" if name["kind"] in ("short", "longWithSingleDash") else "--"
                table[prefix + name["name"]] = takes_value
        return table

    for sub in root.get("subcommands", []):
        commands[sub["commandName"]] = names(sub)
    commands[""] = names(root)
    commands[""]["--version"] = False
    return commands


def code_blocks(path):
    """(language, first line number, lines, the text before the block) for each fenced block."""
    blocks = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```(\w*)\s*$", lines[i])
        if m:
            language, start, body = m.group(1), i + 1, []
            before = "\n".join(lines[max(0, i - 3):i])
            i += 1
            while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
                body.append(lines[i])
                i += 1
            blocks.append((language, start + 1, body, before))
        i += 1
    return blocks


def logical_lines(first, body):
    """Joins lines continued with a backslash; yields (line number, text)."""
    pending, pending_line = "", None
    for offset, line in enumerate(body):
        if pending_line is None:
            pending_line = first + offset
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield pending_line, pending + line
        pending, pending_line = "", None
    if pending:
        yield pending_line, pending


def words(text):
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=False)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        return list(lexer)
    except ValueError:
        return None


def own_arguments(tokens):
    """The command's own words, up to the first redirection, pipe or list operator."""
    for index, token in enumerate(tokens):
        if token in SHELL_STOPS or token.startswith((">", "2>")):
            return tokens[:index]
    return tokens


def check_command(tokens, commands):
    """Problems with one `recipe …` command line (a list of strings), and what it reads."""
    problems, reads = [], []
    args = tokens[1:]
    sub = ""
    if args and not args[0].startswith("-"):
        sub = args[0]
        if sub == "help":
            return ([] if len(args) < 2 or args[1] in commands else [f"no subcommand `{args[1]}`"]), sub, reads
        if sub not in commands:
            return [f"no subcommand `{sub}`"], sub, reads
        args = args[1:]
    accepted = commands[sub]
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            reads += args[i + 1:]
            break
        if token.startswith("-") and not re.match(r"^-\d", token) and token != "-":
            name, _, inline = token.partition("=")
            if name not in accepted:
                problems.append(f"`recipe {sub}` has no option `{name}`".replace("recipe  ", "recipe "))
            elif accepted[name]:
                if inline == "" and "=" not in token:
                    if i + 1 >= len(args):
                        problems.append(f"`{name}` needs a value")
                    else:
                        if name in READ_OPTIONS:
                            reads.append(args[i + 1])
                        i += 1
                elif name in READ_OPTIONS:
                    reads.append(inline)
            i += 1
            continue
        reads.append(token)
        i += 1
    return problems, sub, [r for r in reads if PATHLIKE.search(r)]


def nested_commands(tokens):
    """`recipe …` commands quoted as one word inside another command (git config values), but not
    a driver's display name (`git config merge.recipe.name 'recipe three-way merge'`)."""
    for previous, token in zip([""] + tokens, tokens):
        if token.startswith("recipe ") and not previous.endswith(".name"):
            inner = words(token)
            if inner:
                yield own_arguments(inner)


def test_page(path, commands, run=True):
    """Checks (and runs, where it can) the commands of one page; returns (failures, checked, ran)."""
    failures, checked, ran = [], 0, 0
    where = os.path.relpath(path, ROOT)
    scratch = tempfile.mkdtemp(prefix="recipe-doc-test-")
    try:
        shutil.copytree(os.path.join(ROOT, "Recipes"), os.path.join(scratch, "Recipes"))
        shutil.copytree(os.path.join(ROOT, "Grammar"), os.path.join(scratch, "Grammar"))
        raws = os.path.join(scratch, "Tests", "Fixtures", "raw")
        os.makedirs(raws)
        for dng in glob.glob(os.path.join(ROOT, "Tests", "Fixtures", "raw", "*.dng")):
            shutil.copy(dng, raws)
        for language, first, body, before in code_blocks(path):
            if language == "yaml":
                m = re.search(r"[Ss]ave this as `([^`/]+)`", before)
                if m:
                    with open(os.path.join(scratch, m.group(1)), "w") as f:
                        f.write("\n".join(body) + "\n")
                continue
            if language != "sh":
                continue
            for line_number, text in logical_lines(first, body):
                tokens = words(text)
                if tokens is None:
                    failures.append(f"{where}:{line_number}: cannot split the line into words")
                    continue
                tokens = own_arguments(tokens)
                if not tokens:
                    continue
                for inner in nested_commands(tokens):
                    problems, _, _ = check_command(inner, commands)
                    checked += 1
                    failures += [f"{where}:{line_number}: {p}" for p in problems]
                if tokens[0] in SCENE_COMMANDS and run:
                    subprocess.run(tokens, cwd=scratch, capture_output=True)
                    continue
                if tokens[0] != "recipe":
                    continue
                checked += 1
                problems, sub, reads = check_command(tokens, commands)
                if problems:
                    failures += [f"{where}:{line_number}: {p}" for p in problems]
                    continue
                if not run or sub not in RUNNABLE:
                    if VERBOSE:
                        print(f"  checked  {where}:{line_number}: {text.strip()}")
                    continue
                if not all(os.path.exists(os.path.join(scratch, os.path.expanduser(r))) for r in reads):
                    if VERBOSE:
                        print(f"  checked  {where}:{line_number}: {text.strip()}")
                    continue
                if VERBOSE:
                    print(f"  run      {where}:{line_number}: {text.strip()}")
                result = subprocess.run([BIN] + tokens[1:], cwd=scratch, capture_output=True, text=True,
                                        timeout=TIMEOUT, stdin=subprocess.DEVNULL)
                ran += 1
                if result.returncode not in ALLOWED_STATUS.get(sub, {0}):
                    tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
                    failures.append(f"{where}:{line_number}: `{text.strip()}` exited {result.returncode}: " + " | ".join(tail))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return failures, checked, ran


def self_test(commands):
    """A page with a wrong flag, a wrong subcommand and a failing command must fail."""
    page = tempfile.NamedTemporaryFile("w", suffix=".md", delete=False)
    page.write("```sh\nrecipe render Recipes/photos/kodim03.png -o x.jpg --qualty 80\n"
               "recipe rendr a.jpg\n"
               "recipe render Recipes/photos/LICENSES.md -o x.jpg\n"
               "git config diff.recipe.command 'recipe diff --gti'\n```\n")
    page.close()
    failures, _, _ = test_page(page.name, commands)
    os.unlink(page.name)
    for f in failures:
        print("  caught:", f)
    expected = ["--qualty", "rendr", "exited", "--gti"]
    missing = [e for e in expected if not any(e in f for f in failures)]
    if missing:
        print(f"self-test FAILED: not caught: {missing}")
        return 1
    print("self-test: the wrong flag, the wrong subcommand, the failing command and the wrong nested flag were all caught")
    return 0


def main(argv):
    if not os.access(BIN, os.X_OK):
        print(f"no recipe binary at {BIN} (build it with `swift build --product recipe`, or set RECIPE_BIN)")
        return 1
    global VERBOSE
    if "-v" in argv:
        VERBOSE = True
        argv = [a for a in argv if a != "-v"]
    commands = dump_help()
    if argv[1:] == ["--self-test"]:
        return self_test(commands)
    pages = argv[1:] or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    all_failures = []
    for page in pages:
        failures, checked, ran = test_page(os.path.abspath(page), commands)
        print(f"{os.path.relpath(os.path.abspath(page), ROOT)}: {checked} commands checked, {ran} run, {len(failures)} failed")
        all_failures += failures
    for failure in all_failures:
        print("FAIL", failure)
    return 1 if all_failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
