#!/usr/bin/env python3
"""The public API of a crate as sorted lines of text, read from rustdoc's JSON.

    scripts/api.py LISTING.json CRATE VERSION > LISTING.txt

One line per public item, with what makes a change to it breaking on the same
line: a function's whole signature; an exhaustive struct's public fields, an
exhaustive enum's variants and a trait's required items on the line of the
struct, enum or trait itself (adding one breaks an embedder's struct literal,
`match` or `impl`); a `#[non_exhaustive]` type's fields and variants on lines
of their own (adding one breaks nothing). So a line that is gone or changed is
a breaking change and a new line is an addition. Used by scripts/api.
"""

import json
import sys

# What a listing says when rustdoc's JSON holds something this script does not
# render: the line still changes when the item does.
def fallback(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Api:
    def __init__(self, doc):
        self.doc = doc
        self.index = doc["index"]
        self.paths = doc["paths"]
        self.lines = set()
        self.seen = set()
        # Each item's shortest public path, found by a first walk: a type is
        # named where an embedder names it, not in the private module it is
        # defined in (moving it between private modules changes nothing).
        self.public_paths = {}

    def item(self, item_id):
        return self.index.get(str(item_id))

    def path_of(self, item_id, written):
        if item_id is not None and item_id in self.public_paths:
            return self.public_paths[item_id]
        summary = self.paths.get(str(item_id))
        if summary is None:
            return written
        return "::".join(summary["path"])

    # Types -------------------------------------------------------------
    def ty(self, t):
        if t is None:
            return "()"
        if isinstance(t, str):
            return "_" if t == "infer" else t
        (kind, v), = t.items()
        if kind == "resolved_path":
            return self.path(v)
        if kind == "generic":
            return v
        if kind == "primitive":
            return v
        if kind == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if kind == "slice":
            return "[" + self.ty(v) + "]"
        if kind == "array":
            return "[" + self.ty(v["type"]) + "; " + str(v["len"]) + "]"
        if kind == "borrowed_ref":
            life = (v["lifetime"] + " ") if v.get("lifetime") else ""
            return "&" + life + ("mut " if v["is_mutable"] else "") + self.ty(v["type"])
        if kind == "raw_pointer":
            return "*" + ("mut " if v["is_mutable"] else "const ") + self.ty(v["type"])
        if kind == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if kind == "dyn_trait":
            parts = [self.path(p["trait"]) for p in v["traits"]]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if kind == "qualified_path":
            trait = self.path(v["trait"]) if v.get("trait") else "_"
            return "<" + self.ty(v["self_type"]) + " as " + trait + ">::" + v["name"] + self.args(v.get("args"))
        if kind == "function_pointer":
            sig = v["sig"]
            inputs = ", ".join(self.ty(x[1]) for x in sig["inputs"])
            return "fn(" + inputs + ")" + self.output(sig["output"])
        return fallback(t)

    def path(self, p):
        return self.path_of(p.get("id"), p["path"]) + self.args(p.get("args"))

    def args(self, a):
        if not a:
            return ""
        if isinstance(a, str):
            return "(..)"
        (kind, v), = a.items()
        if kind == "angle_bracketed":
            parts = [self.arg(x) for x in v["args"]]
            parts += [self.constraint(c) for c in v.get("constraints", [])]
            return "<" + ", ".join(parts) + ">" if parts else ""
        if kind == "parenthesized":
            return "(" + ", ".join(self.ty(x) for x in v["inputs"]) + ")" + self.output(v.get("output"))
        return fallback(a)

    def arg(self, x):
        if isinstance(x, str):
            return "_"
        (kind, v), = x.items()
        if kind == "type":
            return self.ty(v)
        if kind == "lifetime":
            return v
        return fallback(x)

    def constraint(self, c):
        binding = c.get("binding", {})
        if "equality" in binding:
            term = binding["equality"]
            value = self.ty(term["type"]) if "type" in term else fallback(term)
            return c["name"] + " = " + value
        if "constraint" in binding:
            return c["name"] + ": " + " + ".join(self.bound(b) for b in binding["constraint"])
        return fallback(c)

    def bound(self, b):
        if isinstance(b, str):
            return b
        (kind, v), = b.items()
        if kind == "trait_bound":
            modifier = {"maybe": "?", "maybe_const": "~const "}.get(v.get("modifier"), "")
            return modifier + self.path(v["trait"])
        if kind == "outlives":
            return v
        if kind == "use":
            return "use<" + ", ".join(x if isinstance(x, str) else fallback(x) for x in v) + ">"
        return fallback(b)

    def output(self, out):
        return "" if out is None else " -> " + self.ty(out)

    def generics(self, g):
        params = []
        for p in g["params"]:
            (kind, v), = p["kind"].items()
            if kind == "lifetime":
                params.append(p["name"] + (": " + " + ".join(v["outlives"]) if v["outlives"] else ""))
            elif kind == "type":
                if v.get("is_synthetic"):
                    continue
                bounds = " + ".join(self.bound(b) for b in v["bounds"])
                default = " = " + self.ty(v["default"]) if v.get("default") else ""
                params.append(p["name"] + (": " + bounds if bounds else "") + default)
            elif kind == "const":
                params.append("const " + p["name"] + ": " + self.ty(v["type"]))
        text = "<" + ", ".join(params) + ">" if params else ""
        wheres = [self.where(w) for w in g["where_predicates"]]
        return text, (" where " + ", ".join(wheres) if wheres else "")

    def where(self, w):
        (kind, v), = w.items()
        if kind == "bound_predicate":
            return self.ty(v["type"]) + ": " + " + ".join(self.bound(b) for b in v["bounds"])
        if kind == "lifetime_predicate":
            return v["lifetime"] + ": " + " + ".join(v["outlives"])
        if kind == "eq_predicate":
            return self.ty(v["lhs"]) + " = " + fallback(v["rhs"])
        return fallback(w)

    # Items -------------------------------------------------------------
    def fn(self, name, f):
        header = f["header"]
        quals = "".join(q for q, on in (("const ", header["is_const"]), ("async ", header["is_async"]),
                                         ("unsafe ", header["is_unsafe"])) if on)
        params, wheres = self.generics(f["generics"])
        inputs = []
        for arg_name, t in f["sig"]["inputs"]:
            if arg_name == "self":
                inputs.append(self.self_arg(t))
            else:
                inputs.append(self.ty(t))
        return quals + "fn " + name + params + "(" + ", ".join(inputs) + ")" + self.output(f["sig"]["output"]) + wheres

    def self_arg(self, t):
        if t == {"generic": "Self"}:
            return "self"
        if "borrowed_ref" in t and t["borrowed_ref"]["type"] == {"generic": "Self"}:
            return "&mut self" if t["borrowed_ref"]["is_mutable"] else "&self"
        return "self: " + self.ty(t)

    def attrs(self, item):
        """`#[non_exhaustive] ` when `item` is marked so, else nothing."""
        for a in item.get("attrs", []):
            if (isinstance(a, dict) and "non_exhaustive" in a) or (isinstance(a, str) and "non_exhaustive" in a):
                return "#[non_exhaustive] "
        return ""

    def add(self, line):
        self.lines.add(line)

    def module(self, prefix, module_id):
        module = self.item(module_id)
        for child_id in module["inner"]["module"]["items"]:
            self.public(prefix, child_id)

    def public(self, prefix, item_id, name=None):
        """Lists `item_id` under `prefix`, as `name` when the crate re-exports
        its own item under that name (listed where it is re-exported)."""
        item = self.item(item_id)
        if item is None or (name is None and item["visibility"] != "public"):
            return
        (kind, v), = item["inner"].items()
        name = item["name"] if name is None else name
        here = prefix + "::" + name if name else prefix
        key = (here, item_id)
        if key in self.seen:
            return
        self.seen.add(key)
        known = self.public_paths.get(item_id)
        if kind != "use" and (known is None or (len(here), here) < (len(known), known)):
            self.public_paths[item_id] = here
        deprecated = " (deprecated)" if item.get("deprecation") else ""
        if kind == "module":
            self.add("pub mod " + here + deprecated)
            self.module(here, item_id)
        elif kind == "use":
            target = self.item(v["id"]) if v.get("id") is not None else None
            if v["is_glob"]:
                self.add("pub use " + v["source"] + "::*" + " in " + prefix)
                if target is not None and "module" in target["inner"]:
                    self.module(prefix, v["id"])
            elif target is not None and target.get("crate_id") == 0:
                self.public(prefix, v["id"], v["name"])
            else:
                self.add("pub use " + prefix + "::" + v["name"] + " = " + self.path_of(v.get("id"), v["source"]))
        elif kind == "function":
            self.add("pub " + self.fn(here, v) + deprecated)
        elif kind == "struct":
            self.struct(here, item, v, deprecated)
        elif kind == "enum":
            self.enum(here, item, v, deprecated)
        elif kind == "union":
            self.add("pub union " + here + " " + fallback(v))
        elif kind == "trait":
            self.trait(here, item, v, deprecated)
        elif kind == "type_alias":
            params, wheres = self.generics(v["generics"])
            self.add("pub type " + here + params + " = " + self.ty(v["type"]) + wheres + deprecated)
        elif kind == "constant":
            self.add("pub const " + here + ": " + self.ty(v["type"]) + " = " + str(v["const"].get("expr")) + deprecated)
        elif kind == "static":
            self.add("pub static " + ("mut " if v["is_mutable"] else "") + here + ": " + self.ty(v["type"]) + deprecated)
        elif kind == "macro":
            self.add("macro " + name + "!" + deprecated)
        else:
            self.add("pub " + kind + " " + here + " " + fallback(v))

    def fields(self, ids):
        out = []
        for field_id in ids:
            field = self.item(field_id)
            if field is not None and field["visibility"] == "public":
                out.append((field["name"], self.ty(field["inner"]["struct_field"])))
        return out

    def struct(self, here, item, v, deprecated):
        params, wheres = self.generics(v["generics"])
        marks = self.attrs(item)
        kind = v["kind"]
        if kind == "unit":
            self.add(marks + "pub struct " + here + params + wheres + deprecated)
        elif "tuple" in kind:
            ids = kind["tuple"]
            shown = []
            for field_id in ids:
                field = self.item(field_id) if field_id is not None else None
                shown.append(self.ty(field["inner"]["struct_field"]) if field and field["visibility"] == "public" else "_")
            self.add(marks + "pub struct " + here + params + "(" + ", ".join(shown) + ")" + wheres + deprecated)
        else:
            plain = kind["plain"]
            fields = self.fields(plain["fields"])
            if marks or plain["has_stripped_fields"]:
                closed = " { .. }"
                self.add(marks + "pub struct " + here + params + closed + wheres + deprecated)
                for name, t in fields:
                    self.add("pub field " + here + "::" + name + ": " + t)
            else:
                body = ", ".join(name + ": " + t for name, t in fields)
                self.add("pub struct " + here + params + " { " + body + " }" + wheres + deprecated)
        self.impls(here, v["impls"])

    def variant(self, variant_id):
        variant = self.item(variant_id)
        kind = variant["inner"]["variant"]["kind"]
        name = variant["name"]
        if kind == "plain":
            return name
        if "tuple" in kind:
            shown = []
            for field_id in kind["tuple"]:
                field = self.item(field_id) if field_id is not None else None
                shown.append(self.ty(field["inner"]["struct_field"]) if field else "_")
            return name + "(" + ", ".join(shown) + ")"
        struct = kind["struct"]
        fields = ", ".join(n + ": " + t for n, t in self.fields(struct["fields"]))
        return name + " { " + fields + (", .." if struct["has_stripped_fields"] else "") + " }"

    def enum(self, here, item, v, deprecated):
        params, wheres = self.generics(v["generics"])
        marks = self.attrs(item)
        variants = [self.variant(i) for i in v["variants"]]
        if marks or v["has_stripped_variants"]:
            self.add(marks + "pub enum " + here + params + " { .. }" + wheres + deprecated)
            for variant_id, shown in zip(v["variants"], variants):
                variant_marks = self.attrs(self.item(variant_id))
                self.add("pub variant " + variant_marks + here + "::" + shown)
        else:
            # Each variant's shape stays part of the enum's line only through
            # its own line: a variant's fields can be marked non-exhaustive.
            names = ", ".join(self.attrs(self.item(i)) + self.item(i)["name"] for i in v["variants"])
            self.add("pub enum " + here + params + " { " + names + " }" + wheres + deprecated)
            for shown in variants:
                self.add("pub variant " + here + "::" + shown)
        self.impls(here, v["impls"])

    def trait(self, here, item, v, deprecated):
        params, wheres = self.generics(v["generics"])
        bounds = ": " + " + ".join(self.bound(b) for b in v["bounds"]) if v["bounds"] else ""
        required, provided = [], []
        for assoc_id in v["items"]:
            assoc = self.item(assoc_id)
            (kind, a), = assoc["inner"].items()
            text = self.assoc(assoc["name"], kind, a)
            if kind == "function" and a["has_body"] or kind in ("assoc_type", "assoc_const") and (a.get("type") or a.get("value")):
                provided.append(text)
            else:
                required.append(text)
        head = ("unsafe " if v["is_unsafe"] else "") + "pub trait " + here + params + bounds + wheres
        self.add(head + " { " + "; ".join(sorted(required)) + " }" + deprecated)
        for text in provided:
            self.add("pub provided " + here + "::" + text)

    def assoc(self, name, kind, a):
        if kind == "function":
            return self.fn(name, a)
        if kind == "assoc_type":
            bounds = ": " + " + ".join(self.bound(b) for b in a["bounds"]) if a.get("bounds") else ""
            return "type " + name + bounds
        if kind == "assoc_const":
            return "const " + name + ": " + self.ty(a["type"])
        return kind + " " + name + " " + fallback(a)

    def impls(self, here, impl_ids):
        for impl_id in impl_ids:
            impl = self.item(impl_id)
            if impl is None:
                continue
            v = impl["inner"]["impl"]
            if v.get("blanket_impl") is not None:
                continue
            # `Freeze` is the compiler's own marker, not nameable on stable.
            if v["trait"] is not None and self.path_of(v["trait"].get("id"), v["trait"]["path"]) == "core::marker::Freeze":
                continue
            params, wheres = self.generics(v["generics"])
            target = self.ty(v["for"])
            if v["trait"] is None:
                for assoc_id in v["items"]:
                    assoc = self.item(assoc_id)
                    if assoc is None or assoc["visibility"] != "public":
                        continue
                    (kind, a), = assoc["inner"].items()
                    if kind == "assoc_const":
                        text = "const " + assoc["name"] + ": " + self.ty(a["type"])
                    else:
                        text = self.assoc(assoc["name"], kind, a)
                    deprecated = " (deprecated)" if assoc.get("deprecation") else ""
                    self.add("impl" + params + " " + target + wheres + " { pub " + text + " }" + deprecated)
            else:
                negative = "!" if v["is_negative"] else ""
                unsafe = "unsafe " if v["is_unsafe"] else ""
                self.add(unsafe + "impl" + params + " " + negative + self.path(v["trait"]) + " for " + target + wheres)


def main():
    listing, crate, version = sys.argv[1:4]
    with open(listing, encoding="utf-8") as f:
        doc = json.load(f)
    api = Api(doc)
    root = api.item(doc["root"])
    # The first walk finds every item's public path, the second lists.
    for _ in range(2):
        api.lines.clear()
        api.seen.clear()
        api.module(root["name"], doc["root"])
    print("# " + crate + " " + version + ": public API (scripts/api; rustdoc JSON format "
          + str(doc["format_version"]) + ")")
    for line in sorted(api.lines):
        print(line)


if __name__ == "__main__":
    main()
