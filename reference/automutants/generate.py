#!/usr/bin/python3
"""Automatic mutants of the reference's rule code, as one schemata build.

Reads the receiver's and the sender's rule code (reference/src/receiver/, reference/src/sender/)
and the CRN (reference/src/crn.cpp) with libclang (Debian's python3-clang), and writes a copy of
those sources in which every mutation site is a call that chooses, by the mutant id active at run
time, the original or one replacement:

  relational   a < b      ->  rdcc::automut::bin<Op::Lt, Op::Le, Op::Gt, ...>(ID, a, b)
                             (on built-in operands: a strong type's operators, Time's and
                             Duration's, are calls libclang does not split into operands)
  arithmetic   a + b      ->  ... Op::Sub ...;  a * b -> a / b;  x += y -> x -= y
  boolean      a && b     ->  (rdcc::automut::on(ID) ? (a || b) : (a && b));  !x -> x
  constants    4096       ->  rdcc::automut::lit(ID, 4096)        (4097, 4095)
  statements   send(...); ->  { if (!rdcc::automut::on(ID)) { send(...); } }   (calls, += on the
                                                                               sending paths)

Mutant 0 is the reference itself. The real sources are never touched; the copy is compiled into
a library and a program of its own (reference/automutants/CMakeLists.txt). It also writes
mutants.json (id, role, file, line, column, kind, original, replacement, function) and
automut_table.cpp (the same table for rdcc-conform-automut --list-auto-mutants).

usage: generate.py SOURCE_ROOT OUT_DIR [-I DIR ...]
"""
import json
import multiprocessing
import os
import re
import sys

import clang.cindex as ci

LIBCLANG = "/usr/lib/llvm-14/lib/libclang-14.so.1"

RELATIONAL = {"<": "Lt", "<=": "Le", ">": "Gt", ">=": "Ge", "==": "Eq", "!=": "Ne"}
REL_REPLACEMENTS = {
    "<": ["<=", ">", "!="],
    "<=": ["<", ">", "=="],
    ">": [">=", "<", "!="],
    ">=": [">", "<", "=="],
    "==": ["!="],
    "!=": ["=="],
}
ARITHMETIC = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div", "%": "Mod"}
ARITH_REPLACEMENTS = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "%": ["/"]}
COMPOUND = {"+=": "-=", "-=": "+="}
ARITH_TYPES = {
    ci.TypeKind.BOOL, ci.TypeKind.CHAR_U, ci.TypeKind.UCHAR, ci.TypeKind.CHAR16,
    ci.TypeKind.CHAR32, ci.TypeKind.USHORT, ci.TypeKind.UINT, ci.TypeKind.ULONG,
    ci.TypeKind.ULONGLONG, ci.TypeKind.CHAR_S, ci.TypeKind.SCHAR, ci.TypeKind.SHORT,
    ci.TypeKind.INT, ci.TypeKind.LONG, ci.TypeKind.LONGLONG, ci.TypeKind.FLOAT,
    ci.TypeKind.DOUBLE, ci.TypeKind.LONGDOUBLE,
}
FUNCTIONS = {
    ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD, ci.CursorKind.CONSTRUCTOR,
    ci.CursorKind.DESTRUCTOR, ci.CursorKind.LAMBDA_EXPR, ci.CursorKind.FUNCTION_TEMPLATE,
}
# Where a literal must stay a constant expression, or is no rule's value.
NO_LITERAL_ANCESTORS = {
    ci.CursorKind.CASE_STMT, ci.CursorKind.STATIC_ASSERT, ci.CursorKind.ENUM_CONSTANT_DECL,
    ci.CursorKind.FIELD_DECL, ci.CursorKind.TEMPLATE_REF, ci.CursorKind.TYPE_REF,
    ci.CursorKind.CXX_NEW_EXPR,
}
# Statements whose removal is never a rule's fault: logging, counters of statistics, asserts.
PREFIX_HEADERS = ["<algorithm>", "<map>", "<optional>", "<string>", "<vector>",
                  "<nlohmann/json.hpp>", '"rdcc/codec/json.hpp"', '"rdcc/reference/receiver.hpp"',
                  '"rdcc/reference/sender.hpp"', '"rdcc/reference/crn.hpp"']
SKIP_CALLEES = {"emit", "enabled", "assert", "__assert_fail", "reserve", "clear"}


def canonical_kind(t):
    return t.get_canonical().kind


def arithmetic(cursor):
    return canonical_kind(cursor.type) in ARITH_TYPES


def text_of(source, extent):
    return source[extent.start.offset:extent.end.offset]


class Site:
    """One mutation site: an extent of a file, its rewrite, and its mutants. Plain data, so that
    the files are parsed in parallel processes."""

    def __init__(self, cursor, kind, children, template, mutants):
        self.start = cursor.extent.start.offset
        self.end = cursor.extent.end.offset
        self.line = cursor.extent.start.line
        self.column = cursor.extent.start.column
        self.kind = kind
        # The extents whose text is rendered inside the rewrite, as @0@, @1@ in `template`; the
        # site's first mutant id is @BASE@.
        self.children = [(c.extent.start.offset, c.extent.end.offset) for c in children]
        self.template = template
        self.mutants = mutants  # [(kind, original, replacement)]
        self.base = 0
        self.function = ""

    def render(self, base, texts):
        out = self.template.replace("@BASE@", str(base))
        for i, t in enumerate(texts):
            out = out.replace(f"@{i}@", t)
        return out


def operator_token(cursor, lhs, rhs):
    for t in cursor.get_tokens():
        if lhs.extent.end.offset <= t.extent.start.offset < rhs.extent.start.offset:
            return t.spelling
    return None


def is_constexpr_function(cursor):
    for t in cursor.get_tokens():
        if t.spelling in ("constexpr", "consteval"):
            return True
        if t.spelling in ("{", ";", "("):
            return False
    return False


# Function-like macros of the rule code: libclang sees their expansion, whose extents are not
# the source's text (a `!` in `assert(!x)` rendered as `negation(id, ())assert(...)`); nothing
# inside their parentheses is mutated.
MACROS = ("assert",)


def macro_ranges(source):
    """The [start, end) offsets of each MACROS invocation's parentheses in `source`."""
    ranges = []
    for name in MACROS:
        for m in re.finditer(r"\b" + name + r"\s*\(", source):
            depth, i = 0, m.end() - 1
            while i < len(source):
                if source[i] == "(":
                    depth += 1
                elif source[i] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            ranges.append((m.start(), i + 1))
    return ranges


class Collector:
    def __init__(self, path, source, targets):
        self.path = path
        self.source = source
        self.targets = targets
        self.sites = []
        self.macros = macro_ranges(source)

    def in_macro(self, cursor):
        start = cursor.extent.start.offset
        return any(a <= start < b for a, b in self.macros)

    def in_file(self, cursor):
        f = cursor.location.file
        return f is not None and os.path.realpath(f.name) == self.path

    def walk(self, cursor, stack):
        for child in cursor.get_children():
            if child.location.file is not None and not self.in_file(child):
                continue
            self.visit(child, stack)
            self.walk(child, stack + [child])

    def function_of(self, stack):
        for c in reversed(stack):
            if c.kind in FUNCTIONS:
                return c
        return None

    def visit(self, c, stack):
        fn = self.function_of(stack)
        # Operators of a type (a defaulted <=> shows implicit literals) and constexpr functions
        # (a run-time choice is no constant expression) are left as they are.
        if fn is None or is_constexpr_function(fn) or fn.spelling.startswith("operator"):
            return
        if any(s.kind == ci.CursorKind.STATIC_ASSERT for s in stack) or self.in_macro(c):
            return
        # In a declaration's type (`std::array<Candidate, kMax + 1> best`: before its name) an
        # expression is a constant: no run-time choice.
        if any(s.kind in (ci.CursorKind.VAR_DECL, ci.CursorKind.FIELD_DECL)
               and s.location.file is not None
               and c.extent.start.offset < s.location.offset for s in stack):
            return
        kids = list(c.get_children())
        site = None
        if c.kind == ci.CursorKind.BINARY_OPERATOR and len(kids) == 2:
            site = self.binary(c, kids)
        elif c.kind == ci.CursorKind.COMPOUND_ASSIGNMENT_OPERATOR and len(kids) == 2:
            site = self.compound(c, kids, stack)
        elif c.kind == ci.CursorKind.UNARY_OPERATOR and len(kids) == 1:
            site = self.negation(c, kids)
        elif c.kind == ci.CursorKind.INTEGER_LITERAL:
            site = self.literal(c, stack)
        elif c.kind == ci.CursorKind.CALL_EXPR and stack and stack[-1].kind == ci.CursorKind.COMPOUND_STMT:
            site = self.removal(c)
        if site is not None:
            site.function = fn.spelling
            self.sites.append(site)

    def binary(self, c, kids):
        lhs, rhs = kids
        op = operator_token(c, lhs, rhs)
        comparable = {ci.TypeKind.ENUM, ci.TypeKind.POINTER, ci.TypeKind.NULLPTR}
        equality = op in ("==", "!=") and all(
            canonical_kind(x.type) in ARITH_TYPES | comparable for x in (lhs, rhs))
        if op is None or not (equality or (arithmetic(lhs) and arithmetic(rhs))):
            return None
        if op in ("&&", "||"):
            other = "||" if op == "&&" else "&&"

            render = f"(::rdcc::automut::on(@BASE@) ? ((@0@) {other} (@1@)) : ((@0@) {op} (@1@)))"
            return Site(c, "boolean", kids, render, [("boolean", op, other)])
        if op in RELATIONAL:
            table, names, kind = REL_REPLACEMENTS, RELATIONAL, "relational"
        elif op in ARITHMETIC:
            if canonical_kind(c.type) == ci.TypeKind.BOOL:
                return None
            table, names, kind = ARITH_REPLACEMENTS, ARITHMETIC, "arithmetic"
        else:
            return None
        reps = table[op]
        ops = ", ".join(f"::rdcc::automut::Op::{names[o]}" for o in [op] + reps)

        render = f"::rdcc::automut::bin<{ops}>(@BASE@, (@0@), (@1@))"
        return Site(c, kind, kids, render, [(kind, op, r) for r in reps])

    def compound(self, c, kids, stack):
        lhs, rhs = kids
        op = None
        for t in c.get_tokens():
            if lhs.extent.end.offset <= t.extent.start.offset < rhs.extent.start.offset:
                op = t.spelling
                break
        if op not in COMPOUND or not arithmetic(lhs):
            return None
        other = COMPOUND[op]

        render = f"(::rdcc::automut::on(@BASE@) ? ((@0@) {other} (@1@)) : ((@0@) {op} (@1@)))"
        return Site(c, "arithmetic", kids, render, [("arithmetic", op, other)])

    def negation(self, c, kids):
        tokens = list(c.get_tokens())
        if not tokens or tokens[0].spelling != "!":
            return None

        render = "::rdcc::automut::negation(@BASE@, (@0@))"
        return Site(c, "boolean", kids, render, [("boolean", "!x", "x")])

    def literal(self, c, stack):
        if any(s.kind in NO_LITERAL_ANCESTORS for s in stack):
            return None
        for s in stack:
            if s.kind == ci.CursorKind.VAR_DECL and any(
                    t.spelling in ("constexpr", "static") for t in s.get_tokens()):
                return None
        # Template arguments and array bounds show as a literal whose parent is a declaration or
        # an unexposed expression of a type; keep literals that are operands and arguments.
        parent = stack[-1] if stack else None
        if parent is None or parent.kind in (ci.CursorKind.VAR_DECL, ci.CursorKind.PARM_DECL):
            if parent is None or parent.kind == ci.CursorKind.PARM_DECL:
                return None
        # A template argument (`std::get<0>`) must stay a constant; a braced initializer would
        # narrow the int the choice returns.
        before = self.source[:c.extent.start.offset].rstrip()
        if before.endswith("<") or (before.endswith(",") and "<" in before[-40:]
                                    and ">" not in before[before.rfind("<"):]):
            return None
        if any(s.kind == ci.CursorKind.INIT_LIST_EXPR for s in stack[-3:]):
            return None
        text = text_of(self.source, c.extent)
        digits = text.rstrip("uUlL")
        if not digits.isdigit():
            return None
        value = int(digits)
        reps = [value + 1] + ([value - 1] if value > 0 else [])

        render = f"::rdcc::automut::lit(@BASE@, {text})"
        return Site(c, "constant", [], render,
                    [("constant", text, str(r)) for r in reps])

    def removal(self, c):
        callee = c.spelling
        if not callee or callee in SKIP_CALLEES or callee.startswith("operator"):
            return None
        # The statement's extent with its semicolon.
        end = c.extent.end.offset
        rest = self.source[end:end + 8]
        if not rest.lstrip().startswith(";"):
            return None
        site = Site(c, "removal", [c], "{ if (!::rdcc::automut::on(@BASE@)) { @0@; } }",
                    [("removal", callee + "(...);", "")])
        site.end = end + rest.index(";") + 1
        return site


def nest(sites):
    """Sites as a forest by extent (a site inside another's child is its descendant)."""
    sites = sorted(sites, key=lambda s: (s.start, -s.end))
    roots, stack = [], []
    for s in sites:
        while stack and not (stack[-1].start <= s.start and s.end <= stack[-1].end):
            stack.pop()
        s.inner = []
        if stack:
            if s.start == stack[-1].start and s.end == stack[-1].end:
                continue  # the same extent twice (an implicit node): keep the first
            stack[-1].inner.append(s)
        else:
            roots.append(s)
        stack.append(s)
    return roots


def render_range(source, start, end, inner):
    """The text of [start, end) with each site of `inner` inside it rewritten."""
    out, at = [], start
    for s in sorted(inner, key=lambda s: s.start):
        if s.start < at or s.end > end:
            continue
        out.append(source[at:s.start])
        out.append(render_site(source, s))
        at = s.end
    out.append(source[at:end])
    return "".join(out)


def render_site(source, s):
    texts = []
    for cs, ce in s.children:
        texts.append(render_range(source, cs, ce, [i for i in s.inner if cs <= i.start and i.end <= ce]))
    return s.render(s.base, texts)


def role_of(rel):
    if rel.startswith("receiver/"):
        return "receiver"
    if rel.startswith("sender/"):
        return "sender"
    return "crn"


def collect_file(job):
    """The mutation sites of one file (a process of its own: libclang parses are the cost)."""
    src_root, rel, args = job
    if not ci.Config.loaded:
        ci.Config.set_library_file(LIBCLANG)
    path = os.path.realpath(os.path.join(src_root, rel))
    # Latin-1: one character per byte, so that libclang's byte offsets index the text.
    with open(path, encoding="latin-1") as f:
        source = f.read()
    if not (rel.endswith(".cpp") or rel.endswith(".hpp")):
        return source, []
    tu = ci.Index.create().parse(path, args=args + ["-I", os.path.dirname(path)])
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        return source, str(errors[0])
    c = Collector(path, source, None)
    c.walk(tu.cursor, [])
    return source, c.sites


def main():
    src_root, out_dir = sys.argv[1], sys.argv[2]
    includes = sys.argv[3:]
    rules = ["receiver", "sender"]
    files = []
    for d in rules:
        for name in sorted(os.listdir(os.path.join(src_root, d))):
            files.append(f"{d}/{name}")
    files.append("crn.cpp")
    args = ["-std=c++20", "-I/usr/lib/llvm-14/lib/clang/14.0.6/include"] + [
        a for inc in includes for a in ("-I", inc)]
    # The standard library, JSON and the public headers once, as a precompiled prefix: parsing
    # them is most of each file's cost.
    os.makedirs(out_dir, exist_ok=True)
    prefix = os.path.join(out_dir, "prefix.hpp")
    with open(prefix, "w", encoding="utf-8") as f:
        f.write("".join(f"#include {h}\n" for h in PREFIX_HEADERS))
    ci.Config.set_library_file(LIBCLANG)
    pch = ci.Index.create().parse(prefix, args=["-x", "c++-header"] + args)
    errors = [d for d in pch.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        sys.exit(f"generate.py: the prefix header: {errors[0]}")
    pch.save(prefix + ".pch")
    args = ["-x", "c++"] + args + ["-include-pch", prefix + ".pch"]
    next_id = 1
    table = []
    jobs = [(src_root, rel, args) for rel in files]
    with multiprocessing.Pool(int(os.environ.get("RDCC_AUTOMUT_JOBS", "4"))) as pool:
        parsed = pool.map(collect_file, jobs)
    for rel, (source, sites) in zip(files, parsed):
        if isinstance(sites, str):
            sys.exit(f"generate.py: {rel}: {sites}")
        out_path = os.path.join(out_dir, "src", rel)
        os.makedirs(os.path.dirname(out_path), exist_ok=True)
        roots = nest(sites)
        kept = []

        def number(s):
            nonlocal next_id
            kept.append(s)
            s.base = next_id
            for kind, original, replacement in s.mutants:
                table.append({"id": next_id, "role": role_of(rel), "file": "reference/src/" + rel,
                              "line": s.line, "column": s.column, "kind": kind,
                              "original": original, "replacement": replacement,
                              "function": s.function})
                next_id += 1
            for i in sorted(s.inner, key=lambda x: x.start):
                number(i)

        for r in roots:
            number(r)
        text = render_range(source, 0, len(source), roots)
        if rel.endswith(".cpp"):
            text = '#include "rdcc/automut.hpp"\n' + text
        elif kept:
            text = text.replace("#pragma once\n", '#pragma once\n#include "rdcc/automut.hpp"\n', 1)
        with open(out_path, "w", encoding="latin-1") as f:
            f.write(text)
    with open(os.path.join(out_dir, "mutants.json"), "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1)
    with open(os.path.join(out_dir, "automut_table.cpp"), "w", encoding="utf-8") as f:
        f.write("// Generated by reference/automutants/generate.py: do not edit.\n")
        f.write('#include "rdcc/automut.hpp"\n\nnamespace rdcc::automut {\n')
        f.write("const AutoMutant kAutoMutants[] = {\n")
        for m in table:
            f.write("    {%d, \"%s\", \"%s\", %d, %d, \"%s\", %s, %s, \"%s\"},\n" % (
                m["id"], m["role"], m["file"], m["line"], m["column"], m["kind"],
                json.dumps(m["original"]), json.dumps(m["replacement"]), m["function"]))
        f.write("};\nconst std::size_t kAutoMutantCount = %d;\n}  // namespace rdcc::automut\n"
                % len(table))
    print(f"generate.py: {len(table)} mutants at {sum(1 for _ in table)} ids in {len(files)} files")


if __name__ == "__main__":
    main()
