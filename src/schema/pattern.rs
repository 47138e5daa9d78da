//! `pattern` and `patternProperties`: the part of ECMA-262 regular
//! expressions JSON Schemas use, matched in time linear in the text.
//!
//! Why not the `regex` crate: the patterns tool schemas carry are short
//! (`^[a-z0-9_-]{1,64}$`, `^\d{4}-\d{2}-\d{2}$`, `^(asc|desc)$`), the crate
//! would be this library's largest dependency by far (and the Python
//! package's too), and its syntax is not ECMA-262's anyway (`\d` and `\w`
//! are Unicode-wide there, ASCII here as in JavaScript). So: a parser for
//! the subset below, compiled to a Thompson NFA and run as a set of states
//! (Pike's VM without captures), so no pattern backtracks: `(a*)*b` on a
//! long run of `a`s costs what its length does.
//!
//! Supported: literals; `.` (any character but a line terminator);
//! classes `[a-z_]`, `[^…]` with ranges and escapes; `\d \D \w \W \s \S`;
//! `\t \n \r \f \v \0 \xHH \uHHHH` and escaped punctuation; anchors `^`
//! and `$` (of the whole text: JSON Schema has no flags); groups `(…)`,
//! `(?:…)` and `(?<name>…)`; alternation `|`; the quantifiers `* + ? {n}
//! {n,} {n,m}` and their lazy forms (the same to a yes-or-no match). A
//! `{` that starts no quantifier is a literal, as in JavaScript.
//!
//! Not supported, and named in the error (the schema is refused, never
//! matched wrongly): backreferences, lookaround, `\b \B`, `\p{…}`, `\cX`.
//! A pattern matches anywhere in the text unless anchored (JSON Schema's
//! rule).

/// A compiled pattern.
#[derive(Debug)]
pub(crate) struct Pattern {
    prog: Vec<Inst>,
}

/// The most instructions a pattern compiles to (a counted repetition is
/// copied out: `(a{1,100}){1,100}` is refused, not compiled to 10,000).
const MAX_PROGRAM: usize = 20_000;

#[derive(Debug)]
enum Inst {
    /// One character that satisfies the class.
    Char(Class),
    /// Go on at both.
    Split(usize, usize),
    Jmp(usize),
    /// Only at the start of the text.
    Start,
    /// Only at its end.
    End,
    Match,
}

/// A set of characters: ranges, or the ranges' complement.
#[derive(Clone, Debug)]
struct Class {
    ranges: Vec<(char, char)>,
    negated: bool,
}

impl Class {
    fn one(c: char) -> Class {
        Class {
            ranges: vec![(c, c)],
            negated: false,
        }
    }

    fn matches(&self, c: char) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= c && c <= b) != self.negated
    }
}

/// What the parser builds.
#[derive(Debug)]
enum Node {
    Empty,
    Char(Class),
    Start,
    End,
    Cat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
}

const DIGITS: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
/// ECMA-262's WhiteSpace and LineTerminator.
const SPACE: &[(char, char)] = &[
    ('\t', '\r'),
    (' ', ' '),
    ('\u{a0}', '\u{a0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200a}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202f}', '\u{202f}'),
    ('\u{205f}', '\u{205f}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{feff}', '\u{feff}'),
];
/// What `.` does not match.
const LINE_ENDS: &[(char, char)] = &[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')];

impl Pattern {
    /// Compiles `source`; the error says what is not supported, or where
    /// the pattern is malformed.
    pub(crate) fn new(source: &str) -> Result<Pattern, String> {
        let mut parser = Parser {
            chars: source.chars().collect(),
            at: 0,
        };
        let node = parser.alternation()?;
        if parser.at < parser.chars.len() {
            return Err(format!("unbalanced `)` at character {}", parser.at + 1));
        }
        let mut prog = Vec::new();
        emit(&node, &mut prog)?;
        prog.push(Inst::Match);
        Ok(Pattern { prog })
    }

    /// Whether the pattern matches anywhere in `text`.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let n = self.prog.len();
        let mut current: Vec<usize> = Vec::with_capacity(n);
        let mut next: Vec<usize> = Vec::with_capacity(n);
        // The step each state was last added in (states are added once
        // per step).
        let mut seen = vec![usize::MAX; n];
        let len = text.len();
        let mut chars = text.char_indices().peekable();
        let mut step = 0;
        loop {
            let pos = chars.peek().map_or(len, |&(i, _)| i);
            // A match may start at any position.
            if self.add(&mut current, &mut seen, step, 0, pos, len) {
                return true;
            }
            let Some((_, c)) = chars.next() else {
                return false;
            };
            step += 1;
            let after = chars.peek().map_or(len, |&(i, _)| i);
            next.clear();
            for &pc in &current {
                if let Inst::Char(class) = &self.prog[pc] {
                    if class.matches(c) && self.add(&mut next, &mut seen, step, pc + 1, after, len)
                    {
                        return true;
                    }
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
    }

    /// Adds state `pc` and what it reaches without reading, at byte `pos`
    /// of a text of `len` bytes; `true` when that reaches the match.
    fn add(
        &self,
        list: &mut Vec<usize>,
        seen: &mut [usize],
        step: usize,
        pc: usize,
        pos: usize,
        len: usize,
    ) -> bool {
        let mut stack = vec![pc];
        while let Some(pc) = stack.pop() {
            if seen[pc] == step {
                continue;
            }
            seen[pc] = step;
            match self.prog[pc] {
                Inst::Match => return true,
                Inst::Jmp(to) => stack.push(to),
                Inst::Split(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                Inst::Start if pos == 0 => stack.push(pc + 1),
                Inst::End if pos == len => stack.push(pc + 1),
                Inst::Start | Inst::End => {}
                Inst::Char(_) => list.push(pc),
            }
        }
        false
    }
}

fn emit(node: &Node, prog: &mut Vec<Inst>) -> Result<(), String> {
    if prog.len() > MAX_PROGRAM {
        return Err("the pattern is too large (its counted repetitions copy out too far)".into());
    }
    match node {
        Node::Empty => {}
        Node::Char(class) => prog.push(Inst::Char(class.clone())),
        Node::Start => prog.push(Inst::Start),
        Node::End => prog.push(Inst::End),
        Node::Cat(parts) => {
            for p in parts {
                emit(p, prog)?;
            }
        }
        Node::Alt(branches) => {
            // split L1, next; L1: a; jmp end; next: split L2, … ; last
            let mut jumps = Vec::new();
            for (i, b) in branches.iter().enumerate() {
                if i + 1 < branches.len() {
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    emit(b, prog)?;
                    jumps.push(prog.len());
                    prog.push(Inst::Jmp(0));
                    let next = prog.len();
                    prog[split] = Inst::Split(split + 1, next);
                } else {
                    emit(b, prog)?;
                }
            }
            let end = prog.len();
            for j in jumps {
                prog[j] = Inst::Jmp(end);
            }
        }
        Node::Repeat(inner, min, max) => {
            for _ in 0..*min {
                emit(inner, prog)?;
            }
            match max {
                None => {
                    // L: split body, out; body; jmp L
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    emit(inner, prog)?;
                    prog.push(Inst::Jmp(split));
                    let out = prog.len();
                    prog[split] = Inst::Split(split + 1, out);
                }
                Some(max) => {
                    // Each optional copy: split body, out.
                    let mut splits = Vec::new();
                    for _ in *min..*max {
                        splits.push(prog.len());
                        prog.push(Inst::Split(0, 0));
                        emit(inner, prog)?;
                    }
                    let out = prog.len();
                    for s in splits {
                        prog[s] = Inst::Split(s + 1, out);
                    }
                }
            }
        }
    }
    if prog.len() > MAX_PROGRAM {
        return Err("the pattern is too large (its counted repetitions copy out too far)".into());
    }
    Ok(())
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let yes = self.peek() == Some(c);
        if yes {
            self.at += 1;
        }
        yes
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.concatenation()?];
        while self.eat('|') {
            branches.push(self.concatenation()?);
        }
        Ok(match branches.len() {
            1 => branches.pop().expect("one"),
            _ => Node::Alt(branches),
        })
    }

    fn concatenation(&mut self) -> Result<Node, String> {
        let mut parts = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            parts.push(self.quantified(atom)?);
        }
        Ok(match parts.len() {
            0 => Node::Empty,
            1 => parts.pop().expect("one"),
            _ => Node::Cat(parts),
        })
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('{') => match self.counted() {
                Some(bounds) => bounds,
                None => return Ok(atom),
            },
            Some(c @ ('*' | '+' | '?')) => {
                self.at += 1;
                match c {
                    '*' => (0, None),
                    '+' => (1, None),
                    _ => (0, Some(1)),
                }
            }
            _ => return Ok(atom),
        };
        if matches!(atom, Node::Start | Node::End) {
            return Err("a quantifier after an anchor".into());
        }
        if let Some(max) = max.filter(|&m| m < min) {
            return Err(format!("the quantifier {{{min},{max}}} counts down"));
        }
        // Lazy or greedy: the same to a yes-or-no match.
        self.eat('?');
        Ok(Node::Repeat(Box::new(atom), min, max))
    }

    /// `{n}`, `{n,}` or `{n,m}` at the cursor, read past; `None` (the
    /// cursor left on the `{`, a literal then) when it is not one.
    fn counted(&mut self) -> Option<(u32, Option<u32>)> {
        let start = self.at;
        self.at += 1;
        let number = |p: &mut Parser| {
            let from = p.at;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.at += 1;
            }
            let digits: String = p.chars[from..p.at].iter().collect();
            digits.parse::<u32>().ok()
        };
        let bounds = (|| {
            let min = number(self)?;
            let max = if self.eat(',') {
                match self.peek() {
                    Some('}') => None,
                    _ => Some(number(self)?),
                }
            } else {
                Some(min)
            };
            self.eat('}').then_some((min, max))
        })();
        if bounds.is_none() {
            self.at = start;
        }
        bounds
    }

    fn atom(&mut self) -> Result<Node, String> {
        let c = self.peek().expect("checked by the caller");
        self.at += 1;
        Ok(match c {
            '^' => Node::Start,
            '$' => Node::End,
            '.' => Node::Char(Class {
                ranges: LINE_ENDS.to_vec(),
                negated: true,
            }),
            '(' => {
                if self.eat('?') {
                    if self.eat(':') {
                    } else if self.peek() == Some('<')
                        && !matches!(self.chars.get(self.at + 1), Some('=' | '!'))
                    {
                        // A named group: the name is no matter here.
                        while self.peek().is_some_and(|c| c != '>') {
                            self.at += 1;
                        }
                        if !self.eat('>') {
                            return Err("an unclosed group name".into());
                        }
                    } else {
                        return Err(
                            "lookaround `(?=`, `(?!`, `(?<=`, `(?<!` is not supported".into()
                        );
                    }
                }
                let inner = self.alternation()?;
                if !self.eat(')') {
                    return Err("an unclosed `(`".into());
                }
                inner
            }
            '[' => Node::Char(self.class()?),
            '\\' => self.escape(false)?,
            '*' | '+' | '?' => return Err(format!("nothing to repeat before `{c}`")),
            c => Node::Char(Class::one(c)),
        })
    }

    /// After `[`.
    fn class(&mut self) -> Result<Class, String> {
        let negated = self.eat('^');
        let mut ranges = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err("an unclosed `[`".into());
            };
            // (`[]` matches nothing, `[^]` anything, as in JavaScript.)
            if c == ']' {
                self.at += 1;
                break;
            }
            let low = self.class_atom()?;
            let single = match &low {
                Node::Char(class) if !class.negated && class.ranges.len() == 1 => {
                    let (a, b) = class.ranges[0];
                    (a == b).then_some(a)
                }
                _ => None,
            };
            let is_range = single.is_some()
                && self.peek() == Some('-')
                && !matches!(self.chars.get(self.at + 1), Some(']') | None);
            if is_range {
                self.at += 1;
                let high = self.class_atom()?;
                let hi = match &high {
                    Node::Char(class) if !class.negated && class.ranges.len() == 1 => {
                        let (a, b) = class.ranges[0];
                        (a == b).then_some(a)
                    }
                    _ => None,
                };
                let (Some(lo), Some(hi)) = (single, hi) else {
                    return Err("a class range with a class at one end".into());
                };
                if lo > hi {
                    return Err(format!("the class range `{lo}-{hi}` is out of order"));
                }
                ranges.push((lo, hi));
                continue;
            }
            match low {
                Node::Char(class) if class.negated => ranges.extend(complement(&class.ranges)),
                Node::Char(class) => ranges.extend(class.ranges),
                _ => unreachable!("a class atom is a character class"),
            }
        }
        Ok(Class { ranges, negated })
    }

    fn class_atom(&mut self) -> Result<Node, String> {
        let c = self.peek().ok_or("an unclosed `[`")?;
        self.at += 1;
        match c {
            '\\' => self.escape(true),
            c => Ok(Node::Char(Class::one(c))),
        }
    }

    /// After `\`; `in_class`: inside `[…]` (where `\b` is a backspace).
    fn escape(&mut self, in_class: bool) -> Result<Node, String> {
        let c = self.peek().ok_or("a `\\` at the end of the pattern")?;
        self.at += 1;
        let set = |ranges: &[(char, char)], negated: bool| {
            Ok(Node::Char(Class {
                ranges: ranges.to_vec(),
                negated,
            }))
        };
        let one = |c: char| Ok(Node::Char(Class::one(c)));
        match c {
            'd' => set(DIGITS, false),
            'D' => set(DIGITS, true),
            'w' => set(WORD, false),
            'W' => set(WORD, true),
            's' => set(SPACE, false),
            'S' => set(SPACE, true),
            't' => one('\t'),
            'n' => one('\n'),
            'r' => one('\r'),
            'f' => one('\u{c}'),
            'v' => one('\u{b}'),
            'b' if in_class => one('\u{8}'),
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => one('\0'),
            'x' => one(self.hex(2)?),
            'u' => one(self.hex(4)?),
            'b' | 'B' => Err(format!("the word boundary `\\{c}` is not supported")),
            'p' | 'P' => Err(format!(
                "the Unicode property escape `\\{c}{{…}}` is not supported"
            )),
            'c' => Err("the control escape `\\c` is not supported".into()),
            '1'..='9' => Err(format!("the backreference `\\{c}` is not supported")),
            'k' => Err("the named backreference `\\k<…>` is not supported".into()),
            c if c.is_ascii_alphanumeric() => {
                Err(format!("the escape `\\{c}` is not one ECMA-262 defines"))
            }
            // `\.`, `\/`, `\-`, `\\`, `\$`, …: the character itself.
            c => one(c),
        }
    }

    fn hex(&mut self, n: usize) -> Result<char, String> {
        let digits: String = self
            .chars
            .get(self.at..self.at + n)
            .unwrap_or(&[])
            .iter()
            .collect();
        let value = (digits.len() == n)
            .then(|| u32::from_str_radix(&digits, 16).ok())
            .flatten()
            .and_then(char::from_u32)
            .ok_or_else(|| format!("a malformed hexadecimal escape `{digits}`"))?;
        self.at += n;
        Ok(value)
    }
}

/// The characters not in `ranges`.
fn complement(ranges: &[(char, char)]) -> Vec<(char, char)> {
    let mut sorted = ranges.to_vec();
    sorted.sort_unstable();
    let mut out = Vec::new();
    let mut next = '\0';
    let mut done = false;
    for (a, b) in sorted {
        if done {
            break;
        }
        if a > next {
            if let Some(before) = char_before(a) {
                out.push((next, before));
            }
        }
        if b >= next {
            match char_after(b) {
                Some(after) => next = after,
                None => done = true,
            }
        }
    }
    if !done {
        out.push((next, char::MAX));
    }
    out
}

fn char_before(c: char) -> Option<char> {
    match c {
        '\0' => None,
        '\u{e000}' => Some('\u{d7ff}'),
        c => char::from_u32(c as u32 - 1),
    }
}

fn char_after(c: char) -> Option<char> {
    match c {
        char::MAX => None,
        '\u{d7ff}' => Some('\u{e000}'),
        c => char::from_u32(c as u32 + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn m(p: &str, s: &str) -> bool {
        Pattern::new(p)
            .unwrap_or_else(|e| panic!("{p}: {e}"))
            .is_match(s)
    }

    #[test]
    fn matches_what_ecma_262_matches() {
        let table: &[(&str, &str, bool)] = &[
            ("^[a-z0-9_-]{1,64}$", "read_file", true),
            ("^[a-z0-9_-]{1,64}$", "Read_file", false),
            ("^[a-z0-9_-]{1,64}$", "", false),
            (r"^\d{4}-\d{2}-\d{2}$", "2024-05-14", true),
            (r"^\d{4}-\d{2}-\d{2}$", "2024-5-14", false),
            ("^(asc|desc)$", "asc", true),
            ("^(asc|desc)$", "ascdesc", false),
            ("b", "abc", true),
            ("^b", "abc", false),
            ("c$", "abc", true),
            ("a.c", "a\nc", false),
            ("a.c", "a-c", true),
            (r"^\w+@\w+\.com$", "ada@example.com", true),
            (r"^\w+@\w+\.com$", "ada@examplexcom", false),
            (r"^[^\s]+$", "no-spaces", true),
            (r"^[^\s]+$", "one space", false),
            (r"^[\d\-]+$", "12-34", true),
            ("^a{2,}$", "a", false),
            ("^a{2,}$", "aaa", true),
            ("^a{2}$", "aaa", false),
            ("^x{,3}$", "x{,3}", true),
            ("^(?:ab)+$", "ababab", true),
            ("^(?<year>\\d{4})$", "2024", true),
            ("^colou?r$", "color", true),
            ("^colou?r$", "colouur", false),
            ("^a+?$", "aaa", true),
            (r"^\u00e9$", "é", true),
            ("^[é-ë]$", "ê", true),
            ("^$", "", true),
            ("", "anything", true),
            ("^(a|)$", "", true),
            ("^[]$", "", false),
            (r"^\.$", ".", true),
            (r"^\.$", "x", false),
        ];
        for &(p, s, want) in table {
            assert_eq!(m(p, s), want, "{p} on {s:?}");
        }
    }

    #[test]
    fn nested_repetition_takes_linear_time() {
        let text = "a".repeat(100_000);
        assert!(!m("^(a*)*b$", &text));
        assert!(m("(a|aa)+$", &text));
    }

    #[test]
    fn refuses_what_it_does_not_support() {
        let table: &[(&str, &str)] = &[
            (r"(a)\1", "the backreference `\\1` is not supported"),
            (
                "(?=a)",
                "lookaround `(?=`, `(?!`, `(?<=`, `(?<!` is not supported",
            ),
            (
                "(?<!a)b",
                "lookaround `(?=`, `(?!`, `(?<=`, `(?<!` is not supported",
            ),
            (r"\bword", "the word boundary `\\b` is not supported"),
            (
                r"\p{L}",
                "the Unicode property escape `\\p{…}` is not supported",
            ),
            ("(a", "an unclosed `(`"),
            ("a)", "unbalanced `)` at character 2"),
            ("[a", "an unclosed `[`"),
            ("*a", "nothing to repeat before `*`"),
            ("[z-a]", "the class range `z-a` is out of order"),
            ("a{3,1}", "the quantifier {3,1} counts down"),
            (
                "(a{1,200}){1,200}",
                "the pattern is too large (its counted repetitions copy out too far)",
            ),
        ];
        for &(p, want) in table {
            assert_eq!(Pattern::new(p).unwrap_err(), want, "{p}");
        }
    }
}
