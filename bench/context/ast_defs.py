"""bench/context: the reference definitions of Python files, from CPython's own
parser (ast): "path<TAB>qualified<TAB>kind<TAB>line<TAB>end" per function or
class, line = the `def`/`class` line (decorators excluded, as ctags and
tree-sitter report the definition), end = its last line. Reads paths on stdin."""
import ast
import sys


def walk(node, path, scope, scope_kind, out):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            q = f"{scope}.{child.name}" if scope else child.name
            is_cls = isinstance(child, ast.ClassDef)
            kind = "class" if is_cls else ("method" if scope_kind == "class" else "function")
            line = child.lineno
            out.append(f"{path}\t{q}\t{kind}\t{line}\t{child.end_lineno}")
            walk(child, path, q, "class" if is_cls else "function", out)
        else:
            walk(child, path, scope, scope_kind, out)


def main():
    out = []
    for path in sys.stdin.read().split("\n"):
        if not path:
            continue
        try:
            with open(path, "rb") as f:
                tree = ast.parse(f.read())
        except (SyntaxError, ValueError):
            print(f"{path}\tSYNTAX_ERROR\t-\t0\t0")
            continue
        walk(tree, path, "", "", out)
    print("\n".join(out))


main()
