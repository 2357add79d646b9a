#!/usr/bin/env python3
"""Differential run of Courier's UTS #46 ToASCII against Python's `idna` package.

    idna_differential.py generate DIR [--count N] [--seed S]   writes DIR/input.txt
    idna_differential.py compare DIR                            reads DIR/output.txt, reports

The peer is idna 3.4, the release whose tables are Unicode 15.0.0 like Courier's, called as
`idna.encode(name, uts46=True, std3_rules=True, transitional=False)`: UTS #46 mapping with the
same flags, then IDNA2008's own checks (RFC 5891-5893). Those checks differ from UTS #46 in known
ways, and every disagreement must be one of them, each verified, not assumed:

  * idna2008-codepoint: idna refuses a code point IDNA2008 does not make PVALID that UTS #46 keeps
    valid (symbols and emoji, "NV8"/"XV8" in IdnaMappingTable.txt); checked: the code point idna
    names is UTS #46-valid and not PVALID or CONTEXTJ in idna's own tables.
  * idna2008-contexto: idna applies RFC 5892's CONTEXTO rules (middle dot, Greek keraia, Hebrew
    geresh, katakana middle dot, Arabic-Indic digits), which UTS #46 leaves out; checked: the
    code point idna names is CONTEXTO.
  * idna34-zwnj-scan: idna 3.4 looks for the joining letters around a ZWNJ past characters that
    are not transparent (a loop without a `break`, fixed in later releases) and takes marks to be
    non-joining; checked: RFC 5892 A.1's expression, evaluated here, fails for the label.
  * python-punycode-leading-delimiter: Python's punycode codec drops a "-" that has no basic code
    point before it, so idna takes "xn---abc" for what "xn--abc" encodes; RFC 3492 §6.2 (and ICU)
    read that "-" as a digit, which fails; checked: Courier's P4 label starts with "xn---".
  * bidi-every-label: Courier applies RFC 5893 to every label of a name holding R, AL or AN (UTS #46
    CheckBidi, "Bidi domain name"); idna only to labels that themselves hold one; checked: the
    label Courier refuses holds no R, AL or AN, and idna accepts it alone.

Any other disagreement fails the run. Names are generated from a fixed seed (printed) out of
pools built to reach every rule: mapped and ignored characters, composed and decomposed Latin,
Greek final sigma, Hebrew and Arabic with digits of both kinds, Devanagari viramas with ZWJ and
ZWNJ, Arabic joining letters around ZWNJ, Hangul jamo, CJK, full-width forms and dots, symbols,
disallowed and STD3 characters, "xn--" labels (valid, upper-case, corrupted) and long labels.
Code points that Python's unicodedata (Unicode 14.0 on Python 3.11) does not know are left out,
since idna reads NFC and Bidi classes from it.
"""

import os
import random
import re
import sys
import unicodedata


def load_peer():
    import idna  # noqa: E402  (the caller puts idna 3.4 first on sys.path)
    from idna import idnadata, uts46data
    if idna.__version__ != "3.4" and os.environ.get("COURIER_IDNA_ANY_PEER") is None:
        sys.exit(f"idna_differential: the peer is idna {idna.__version__}, not 3.4 (Unicode 15.0.0 tables)")
    return idna, idnadata, uts46data


def pools():
    r = lambda a, b: [chr(c) for c in range(a, b + 1)]
    return {
        "ascii": r(0x61, 0x7A) * 3 + r(0x30, 0x39) + ["-"] * 4 + r(0x41, 0x5A),
        "latin": r(0xC0, 0x24F) + r(0x61, 0x7A) * 2,
        "marks": r(0x300, 0x36F),
        "greek": r(0x3B1, 0x3C9) + ["\u03c2", "\u0391", "\u03a3", "\u0386", "\u0375"] + r(0x1F00, 0x1F20),
        "cyrillic": r(0x430, 0x44F) + r(0x410, 0x42F),
        "hebrew": r(0x5D0, 0x5EA) * 2 + r(0x591, 0x5C7) + ["\u05f3", "\u05f4"] + r(0x30, 0x39),
        "arabic": r(0x620, 0x64A) * 2 + r(0x64B, 0x65F) + r(0x660, 0x669) + r(0x6F0, 0x6F9) + r(0x30, 0x39),
        "devanagari": r(0x915, 0x939) * 2 + ["\u094d"] * 6 + ["\u200c", "\u200d"] * 3 + r(0x93E, 0x94C),
        "joining": r(0x626, 0x64A) + ["\u0627", "\u062f", "\u0631"] + ["\u200c"] * 6 + ["\u064b", "\u0670"],
        "joiners": ["\u200c", "\u200d"],
        "cjk": r(0x4E00, 0x4E80) + r(0x3041, 0x3096) + r(0x30A1, 0x30FA) + ["\u30fb", "\u3099", "\u309a"],
        "hangul": r(0x1100, 0x1112) + r(0x1161, 0x1175) + r(0x11A8, 0x11C2) + r(0xAC00, 0xAD00),
        "fullwidth": r(0xFF10, 0xFF19) + r(0xFF21, 0xFF3A) + r(0xFF41, 0xFF5A) + r(0xFF61, 0xFF9F),
        "symbols": r(0x2190, 0x21FF) + r(0x2600, 0x26FF) + r(0x1F300, 0x1F64F) + ["\u00b7", "\u2764"],
        "ignored": ["\u00ad", "\u200b", "\u2060", "\ufe0f", "\ufe00", "\u034f", "\u180b"],
        "disallowed": [" ", "_", "!", "*", "/", "\u2028", "\ufffd", "\ue000", "\u0000", "\u007f", "%"],
        "mapped": ["\u00df", "\u1e9e", "\u2116", "\u2122", "\u00bd", "\u01c4", "\u0130", "\u2160",
                   "\u3250", "\U0001d400", "\ufb01", "\u2488", "\u2474", "\uff0e", "\u3002", "\uff61"],
        "any": None,
    }


def known(ch):
    return unicodedata.category(ch) != "Cn"


def random_char(rng, pool):
    if pool is None:
        while True:
            c = chr(rng.randrange(0x80, 0x30000))
            if known(c) and not (0xD800 <= ord(c) <= 0xDFFF):
                return c
    return rng.choice(pool)


def make_label(rng, p, idna):
    kind = rng.random()
    names = list(p)
    if kind < 0.08:
        # An "xn--" label: a valid encoding of a generated label, upper-cased, or corrupted.
        inner = make_plain_label(rng, p, names, rng.randint(1, 8))
        try:
            encoded = "xn--" + inner.encode("punycode").decode("ascii")
        except Exception:
            return inner
        choice = rng.random()
        if choice < 0.2:
            return encoded.upper()
        if choice < 0.4 and len(encoded) > 5:
            i = rng.randrange(4, len(encoded))
            return encoded[:i] + rng.choice("-!0az9") + encoded[i + 1:]
        return encoded
    length = rng.randint(55, 70) if kind < 0.12 else rng.randint(1, 10)
    return make_plain_label(rng, p, names, length)


CLEAN = ["latin", "greek", "cyrillic", "cjk", "hangul", "hebrew", "arabic", "devanagari", "fullwidth"]


def make_plain_label(rng, p, names, length):
    # Half the labels from one script (most of them valid), half from a mix of any pools.
    chosen = [rng.choice(CLEAN)] if rng.random() < 0.5 else rng.sample(names, rng.randint(1, 3))
    if rng.random() < 0.5:
        chosen.append("ascii")
    out = []
    for _ in range(length):
        ch = random_char(rng, p[rng.choice(chosen)])
        if known(ch):
            out.append(ch)
    return "".join(out)


def generate(directory, count, seed):
    idna, _, _ = load_peer()
    rng = random.Random(seed)
    p = pools()
    names = []
    dots = [".", ".", ".", ".", "\u3002", "\uff0e", "\uff61"]
    while len(names) < count:
        labels = [make_label(rng, p, idna) for _ in range(rng.choice([1, 1, 2, 2, 2, 3, 4]))]
        name = labels[0]
        for label in labels[1:]:
            name += rng.choice(dots) + label
        if rng.random() < 0.1:
            name += "."
        if rng.random() < 0.02:
            name = "." + name
        if name and all(known(c) or ord(c) < 0x80 for c in name):
            names.append(name)
    with open(os.path.join(directory, "input.txt"), "w") as f:
        for name in names:
            f.write(name.encode("utf-8").hex() + "\n")
    print(f"idna-check: {count} names generated (seed {seed})")


def has_rtl(label):
    return any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in label)


def named_code_point(message):
    match = re.search(r"U\+([0-9A-Fa-f]{4,6})", message)
    return int(match.group(1), 16) if match else None


def explain(name, courier, error, idna, idnadata, uts46data):
    """The category of a verified, known difference, or None."""
    from idna.intranges import intranges_contain
    classes = idnadata.codepoint_classes
    if courier[0] == "ok":
        cp = named_code_point(str(error))
        if cp is None:
            return None
        kind = type(error).__name__
        if (kind == "InvalidCodepoint" and uts46_valid(cp, uts46data)
                and not intranges_contain(cp, classes["PVALID"]) and not intranges_contain(cp, classes["CONTEXTJ"])):
            return "idna2008-codepoint"
        if kind == "InvalidCodepointContext" and intranges_contain(cp, classes["CONTEXTO"]):
            return "idna2008-contexto"
        return None
    # Courier refused, idna accepted.
    _, rule, index = courier
    if rule == "P4":
        labels = [l.lower() for l in re.split("[.\u3002\uff0e\uff61]", name)]
        index = int(index)
        if index < len(labels) and labels[index].startswith("xn---"):
            return "python-punycode-leading-delimiter"
    if rule == "C1":
        labels = idna.decode(idna.encode(name, uts46=True, std3_rules=True)).split(".")
        index = int(index)
        if index < len(labels) and not zwnj_contexts_hold(labels[index], idnadata):
            return "idna34-zwnj-scan"
    if rule.startswith("B"):
        labels = idna.decode(idna.encode(name, uts46=True, std3_rules=True)).split(".")
        index = int(index)
        if index < len(labels) and not has_rtl(labels[index]) and any(has_rtl(l) for l in labels):
            try:
                idna.encode(labels[index], uts46=True, std3_rules=True)
                return "bidi-every-label"
            except Exception:
                return None
    return None


def zwnj_contexts_hold(label, idnadata):
    """RFC 5892 A.1 for every ZWNJ of `label`, as written: a virama before it, or
    (Joining_Type:{L,D})(Joining_Type:T)* ZWNJ (Joining_Type:T)*(Joining_Type:{R,D}).
    idna 3.4's scan goes on past a character that is not T (later releases stop there), and its
    table leaves out the marks that are T by General_Category, so both are done here."""
    def joining(ch):
        value = idnadata.joining_types.get(ord(ch))
        if value is not None:
            return chr(value)
        return "T" if unicodedata.category(ch) in ("Mn", "Me", "Cf") else "U"
    for pos, ch in enumerate(label):
        if ch != "\u200c":
            continue
        if pos > 0 and unicodedata.combining(label[pos - 1]) == 9:
            continue
        left = pos - 1
        while left >= 0 and joining(label[left]) == "T":
            left -= 1
        right = pos + 1
        while right < len(label) and joining(label[right]) == "T":
            right += 1
        if left < 0 or joining(label[left]) not in "LD" or right >= len(label) or joining(label[right]) not in "RD":
            return False
    return True


def uts46_valid(cp, uts46data):
    import bisect
    rows = uts46data.uts46data
    row = rows[bisect.bisect_left(rows, (cp, "Z")) - 1]
    return row[1] in ("V", "D")


def compare(directory):
    idna, idnadata, uts46data = load_peer()
    with open(os.path.join(directory, "input.txt")) as f:
        names = [bytes.fromhex(line.strip()).decode("utf-8") for line in f if line.strip()]
    with open(os.path.join(directory, "output.txt")) as f:
        results = [line.rstrip("\n").split(" ") for line in f]
    if len(results) != len(names):
        sys.exit(f"idna-check: {len(names)} names but {len(results)} results")
    counts = {"agree-ascii": 0, "agree-refused": 0}
    unexplained = []
    for name, courier in zip(names, results):
        try:
            peer = idna.encode(name, uts46=True, std3_rules=True, transitional=False).decode("ascii")
            error = None
        except Exception as e:  # idna raises IDNAError subclasses and, rarely, UnicodeError
            peer, error = None, e
        if courier[0] == "ok" and peer is not None:
            if courier[1] == peer:
                counts["agree-ascii"] += 1
            else:
                unexplained.append((name, courier, peer))
            continue
        if courier[0] == "error" and peer is None:
            counts["agree-refused"] += 1
            continue
        category = explain(name, courier, error, idna, idnadata, uts46data)
        if category is None:
            unexplained.append((name, courier, peer if peer is not None else f"{type(error).__name__}: {error}"))
        else:
            counts[category] = counts.get(category, 0) + 1
    total = len(names)
    agreed = counts["agree-ascii"] + counts["agree-refused"]
    explained = total - agreed - len(unexplained)
    print(f"idna-check: {total} names against idna {idna.__version__}: "
          f"{agreed} agree ({counts['agree-ascii']} same ASCII form, {counts['agree-refused']} both refuse), "
          f"{explained} differ by a verified IDNA2008/UTS #46 difference "
          + "(" + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if not k.startswith("agree")) + "), "
          f"{len(unexplained)} unexplained")
    for name, courier, peer in unexplained[:20]:
        print(f"  {name!r} {[hex(ord(c)) for c in name]}: courier {' '.join(courier)}; idna {peer}")
    libidn2_report(names, results)
    return 1 if unexplained else 0


def libidn2_report(names, results):
    """curl's own conversion, for information: libidn2 (Debian's, as curl 7.88 links it) called
    as curl calls it (idn2_lookup_u8 with IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL, then
    IDN2_TRANSITIONAL when that fails). Not a pass/fail peer: libidn2 is IDNA2008 with its own
    Unicode version, and curl's transitional fallback maps "ß" to "ss"."""
    import ctypes
    try:
        lib = ctypes.CDLL("libidn2.so.0")
    except OSError:
        print("idna-check: libidn2 not found; no comparison with curl's conversion")
        return
    lookup = lib.idn2_lookup_u8
    lookup.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
    lookup.restype = ctypes.c_int
    lib.idn2_free.argtypes = [ctypes.c_void_p]
    version = ctypes.CDLL("libidn2.so.0").idn2_check_version
    version.restype = ctypes.c_char_p
    version.argtypes = [ctypes.c_char_p]
    for mode in ("as curl 7.88 calls it", "strict (IDN2_NONTRANSITIONAL | IDN2_USE_STD3_ASCII_RULES, no fallback)"):
        libidn2_compare(names, results, lookup, version(None).decode(), mode)


def libidn2_compare(names, results, lookup, version, mode):
    import ctypes
    curl = mode.startswith("as curl")
    counts = {"same": 0, "both refuse": 0, "only libidn2 refuses": 0, "only Courier refuses": 0, "different ASCII": 0}
    examples = {}
    for name, courier in zip(names, results):
        out = ctypes.c_char_p()
        rc = lookup(name.encode("utf-8"), ctypes.byref(out), 1 | 8 if curl else 8 | 32)
        if rc != 0 and curl:
            rc = lookup(name.encode("utf-8"), ctypes.byref(out), 4)
        peer = out.value.decode("ascii", "replace") if rc == 0 else None
        if courier[0] == "ok" and peer is not None:
            key = "same" if courier[1] == peer else "different ASCII"
        elif courier[0] == "ok":
            key = "only libidn2 refuses"
        elif peer is not None:
            key = "only Courier refuses"
        else:
            key = "both refuse"
        counts[key] += 1
        examples.setdefault(key, (name, courier, peer))
    print(f"idna-check: for information, libidn2 {version} {mode}: "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for key in ("different ASCII", "only Courier refuses", "only libidn2 refuses"):
        if key in examples:
            name, courier, peer = examples[key]
            print(f"  e.g. {key}: {name!r}: courier {' '.join(courier)}; libidn2 {peer}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    command, directory = sys.argv[1], sys.argv[2]
    if command == "generate":
        count, seed = 20000, 46
        args = sys.argv[3:]
        for i in range(0, len(args) - 1, 2):
            if args[i] == "--count":
                count = int(args[i + 1])
            elif args[i] == "--seed":
                seed = int(args[i + 1])
        generate(directory, count, seed)
    elif command == "compare":
        sys.exit(compare(directory))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
