"""LaTeX output: a booktabs tabular in pure ASCII (specials escaped, every non-ASCII character as a LaTeX command or an
accent, anything unknown as its code point, e.g. `[U+2603]`); title, lead, notes and signature as `%` comments; each
warning as a `% warning:` comment and a visible footnote-size line under the tabular."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

from releval.core.table import SignatureField, Table
from releval.report.cells import (
    display_cells,
    one_line,
    shown_signatures,
    signature_pairs,
)

#: Non-ASCII characters of releval's output (and their neighbours): the LaTeX for a table, the ASCII for a comment.
_NON_ASCII: dict[str, tuple[str, str]] = {
    "−": ("$-$", "-"),
    "–": ("--", "-"),
    "—": ("---", "--"),
    "‐": ("-", "-"),
    "‑": ("-", "-"),
    "±": ("$\\pm$", "+/-"),
    "∓": ("$\\mp$", "-/+"),
    "×": ("$\\times$", "x"),
    "÷": ("$\\div$", "/"),
    "·": ("$\\cdot$", "*"),
    "∗": ("$\\ast$", "*"),
    "•": ("$\\bullet$", "*"),
    "≤": ("$\\leq$", "<="),
    "≥": ("$\\geq$", ">="),
    "≠": ("$\\neq$", "!="),
    "≈": ("$\\approx$", "~"),
    "∝": ("$\\propto$", "~"),
    "∈": ("$\\in$", "in"),
    "∞": ("$\\infty$", "inf"),
    "√": ("$\\surd$", "sqrt"),
    "∑": ("$\\sum$", "sum"),
    "⌈": ("$\\lceil$", "ceil("),
    "⌉": ("$\\rceil$", ")"),
    "⌊": ("$\\lfloor$", "floor("),
    "⌋": ("$\\rfloor$", ")"),
    "→": ("$\\rightarrow$", "->"),
    "←": ("$\\leftarrow$", "<-"),
    "↔": ("$\\leftrightarrow$", "<->"),
    "⇒": ("$\\Rightarrow$", "=>"),
    "½": ("$\\frac{1}{2}$", "1/2"),
    "¼": ("$\\frac{1}{4}$", "1/4"),
    "¾": ("$\\frac{3}{4}$", "3/4"),
    "°": ("$^{\\circ}$", "deg"),
    "§": ("\\S{}", "S"),
    "¶": ("\\P{}", "P"),
    "†": ("\\dag{}", "+"),
    "‡": ("\\ddag{}", "++"),
    "…": ("\\ldots{}", "..."),
    "✗": ("$\\times$", "x"),
    "✓": ("$\\surd$", "v"),
    "‘": ("`", "'"),
    "’": ("'", "'"),
    "“": ("``", '"'),
    "”": ("''", '"'),
    "„": (",,", '"'),
    "«": ("<<", "<<"),
    "»": (">>", ">>"),
    "\u00a0": ("~", " "),
    "\u2009": ("\\,", " "),
    "\u202f": ("\\,", " "),
    "ß": ("\\ss{}", "ss"),
    "æ": ("\\ae{}", "ae"),
    "Æ": ("\\AE{}", "AE"),
    "ø": ("\\o{}", "o"),
    "Ø": ("\\O{}", "O"),
    "œ": ("\\oe{}", "oe"),
    "Œ": ("\\OE{}", "OE"),
    "å": ("\\aa{}", "a"),
    "Å": ("\\AA{}", "A"),
    "ł": ("\\l{}", "l"),
    "Ł": ("\\L{}", "L"),
    "ı": ("\\i{}", "i"),
    "¿": ("?`", "?"),
    "¡": ("!`", "!"),
    "€": ("EUR", "EUR"),
    "£": ("GBP", "GBP"),
}
_GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "varepsilon",
    "ζ": "zeta",
    "η": "eta",
    "θ": "theta",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "µ": "mu",
    "ν": "nu",
    "ξ": "xi",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "τ": "tau",
    "φ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
    "Γ": "Gamma",
    "Δ": "Delta",
    "Θ": "Theta",
    "Λ": "Lambda",
    "Ξ": "Xi",
    "Π": "Pi",
    "Σ": "Sigma",
    "Φ": "Phi",
    "Ψ": "Psi",
    "Ω": "Omega",
}
_NON_ASCII |= {ch: (f"$\\{name}$", name) for ch, name in _GREEK.items()}
_NON_ASCII |= {ch: (f"$^{{{d}}}$", f"^{d}") for ch, d in zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")}
_NON_ASCII |= {ch: (f"$_{{{d}}}$", f"_{d}") for ch, d in zip("₀₁₂₃₄₅₆₇₈₉₊₋", "0123456789+-")}
#: Combining marks as LaTeX accent commands (é is e + U+0301 after decomposition).
_ACCENTS = {
    "\u0300": "\\`",
    "\u0301": "\\'",
    "\u0302": "\\^",
    "\u0303": "\\~",
    "\u0304": "\\=",
    "\u0306": "\\u",
    "\u0307": "\\.",
    "\u0308": '\\"',
    "\u030a": "\\r",
    "\u030b": "\\H",
    "\u030c": "\\v",
    "\u0323": "\\d",
    "\u0327": "\\c",
    "\u0328": "\\k",
}
_LATEX_ASCII = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "$": "\\$",
    "#": "\\#",
    "_": "\\_",
    "{": "\\{",
    "}": "\\}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
    "<": "$<$",
    ">": "$>$",
    "|": "$|$",
}


def _clusters(text: str) -> Iterable[tuple[str, str]]:
    """(base character, its combining marks): é is e with U+0301, while ≠ (= with U+0338) stays one character."""
    base, marks = "", ""
    for ch in unicodedata.normalize("NFC", text):
        if unicodedata.combining(ch) and base:
            marks += ch
            continue
        if base:
            yield base, marks
        base, marks = ch, ""
        parts = "" if ch.isascii() or ch in _NON_ASCII else unicodedata.normalize("NFD", ch)
        if len(parts) > 1 and not unicodedata.combining(parts[0]):
            base, marks = parts[0], parts[1:]
    if base:
        yield base, marks


def _latex_char(ch: str) -> str:
    if ch in _LATEX_ASCII:
        return _LATEX_ASCII[ch]
    if ch.isascii():
        return ch if ch.isprintable() else " "
    if ch in _NON_ASCII:
        return _NON_ASCII[ch][0]
    compat = unicodedata.normalize("NFKD", ch)
    if compat != ch:
        return latex_escape(compat)
    if unicodedata.combining(ch):
        return ""
    return f"[U+{ord(ch):04X}]"


def latex_escape(text: str) -> str:
    """`text` as pure-ASCII LaTeX: specials escaped, non-ASCII as commands, accents or code points ([U+2603])."""
    clusters = list(_clusters(one_line(text)))
    out = []
    for i, (base, marks) in enumerate(clusters):
        piece = _latex_char(base)
        if base == "-" and i + 1 < len(clusters) and clusters[i + 1][0] == "-":
            piece = "-{}"  # "--" in a label stays two hyphens, not an en dash
        for mark in marks:
            accent = _ACCENTS.get(mark)
            if accent is not None and base.isascii() and base.isalpha():
                piece = f"{accent}{{{piece}}}"
        out.append(piece)
    return "".join(out)


def latex_comment(text: str) -> str:
    """`text` as the ASCII body of a `%` comment: readable transliterations, no line break, no ^^ escapes."""
    out = []
    for base, _marks in _clusters(one_line(text)):
        if base.isascii():
            out.append(base if base.isprintable() else " ")
        elif base in _NON_ASCII:
            out.append(_NON_ASCII[base][1])
        else:
            compat = unicodedata.normalize("NFKD", base)
            out.append(latex_comment(compat) if compat != base else f"[U+{ord(base):04X}]")
    return "".join(out).replace("^^", "^ ^")


def render_latex(tables: Sequence[Table], width: int = 2) -> str:
    """Booktabs tabulars in pure ASCII; comments carry the title, notes and signature, a line under the table
    each warning."""
    shown = [t for t in tables if t.shown_in(data=False)]
    blocks = [_latex_block(t, sig, width) for t, sig in zip(shown, shown_signatures(shown))]
    return "\n".join(blocks)


def _latex_block(table: Table, signature: SignatureField, width: int) -> str:
    lines = [f"% {latex_comment(x)}" for x in ([table.title] if table.title else []) + list(table.lead)]
    lines += [f"% warning: {latex_comment(w)}" for w in table.warnings]
    if table.columns:
        columns, header, body = display_cells(table, width)
        spec = "".join(
            ("r" if c.align == "right" else "l") if c.align else ("l" if i == 0 else "r") for i, c in enumerate(columns)
        )
        lines += [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(latex_escape(h) for h in header) + r" \\"]
        lines.append("\\midrule")
        for i, row in enumerate(body):
            if i in table.rule_before and 0 < i:
                lines.append("\\midrule")
            lines.append(" & ".join(latex_escape(c) for c in row) + r" \\")
        lines += ["\\bottomrule", "\\end{tabular}"]
        lines += [f"{{\\footnotesize\\textit{{Warning:}} {latex_escape(w)}\\par}}" for w in table.warnings]
    lines += [f"% note: {latex_comment(n)}" for n in table.notes]
    lines += [
        f"% signature{f' ({latex_comment(label)})' if label else ''}: {latex_comment(sig)}"
        for label, sig in signature_pairs(signature)
    ]
    return "\n".join(lines) + "\n"
