//! The one hand-written Rust lexer of the tests that read the project's own source: where a
//! comment or a literal starts and ends ([`literal_len`]), the text with them blanked
//! ([`lex`], for the architecture test) and the string literals alone ([`string_literals`],
//! for the platform-name scan).

/// `raw` with comments, string and char literals blanked (newlines kept, so lines count true).
pub(crate) fn lex(raw: &str) -> String {
    let c: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < c.len() {
        let skip = literal_len(&c, i);
        if skip == 0 {
            out.push(c[i]);
            i += 1;
            continue;
        }
        for &ch in &c[i..(i + skip).min(c.len())] {
            out.push(if ch == '\n' { '\n' } else { ' ' });
        }
        i += skip;
    }
    out
}

/// The length of the comment or literal that starts at `i`, or 0.
fn literal_len(c: &[char], i: usize) -> usize {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let word_before = i > 0 && (at(i - 1).is_alphanumeric() || at(i - 1) == '_');
    match (at(i), at(i + 1)) {
        ('/', '/') => c[i..]
            .iter()
            .position(|&x| x == '\n')
            .unwrap_or(c.len() - i),
        ('/', '*') => block_comment_len(c, i),
        ('"', _) => quoted_len(c, i, '"'),
        ('b', '"') if !word_before => 1 + quoted_len(c, i + 1, '"'),
        ('r' | 'b', '#' | '"' | 'r') if !word_before => raw_string_len(c, i),
        ('\'', '\\') => quoted_len(c, i, '\''),
        ('\'', _) if at(i + 2) == '\'' => 3,
        _ => 0,
    }
}

/// A (nested) block comment from `i`.
fn block_comment_len(c: &[char], i: usize) -> usize {
    let (mut depth, mut k) = (0usize, i);
    while k + 1 < c.len() {
        if c[k] == '/' && c[k + 1] == '*' {
            depth += 1;
            k += 2;
        } else if c[k] == '*' && c[k + 1] == '/' {
            depth -= 1;
            k += 2;
            if depth == 0 {
                return k - i;
            }
        } else {
            k += 1;
        }
    }
    c.len() - i
}

/// A literal from the quote at `i` to its closing `quote`, escapes skipped.
fn quoted_len(c: &[char], i: usize, quote: char) -> usize {
    let mut k = i + 1;
    while k < c.len() {
        match c[k] {
            '\\' => k += 2,
            x if x == quote => return k + 1 - i,
            _ => k += 1,
        }
    }
    c.len() - i
}

/// A raw string (`r"…"`, `r#"…"#`, `br#"…"#`) from `i`, or 0 when `i` starts none.
fn raw_string_len(c: &[char], i: usize) -> usize {
    let mut k = i;
    if c.get(k) == Some(&'b') {
        k += 1;
    }
    if c.get(k) != Some(&'r') {
        return 0;
    }
    k += 1;
    let hashes = c[k..].iter().take_while(|&&x| x == '#').count();
    k += hashes;
    if c.get(k) != Some(&'"') {
        return 0;
    }
    k += 1;
    while k < c.len() {
        if c[k] == '"'
            && c[k + 1..]
                .iter()
                .take(hashes)
                .filter(|&&x| x == '#')
                .count()
                == hashes
        {
            return k + 1 + hashes - i;
        }
        k += 1;
    }
    c.len() - i
}

/// The string literals of `text` (plain, byte and raw; escapes kept as written), with the line
/// each starts on; comments and char literals are skipped.
pub(crate) fn string_literals(text: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    while i < c.len() {
        let skip = literal_len(&c, i);
        if skip == 0 {
            line += usize::from(c[i] == '\n');
            i += 1;
            continue;
        }
        let end = (i + skip).min(c.len());
        let literal = &c[i..end];
        let string = matches!(literal[0], '"' | 'b' | 'r');
        if let Some(open) = literal.iter().position(|&x| x == '"').filter(|_| string) {
            let hashes = literal[..open].iter().filter(|&&x| x == '#').count();
            let close = literal.len().saturating_sub(1 + hashes).max(open + 1);
            out.push((line, literal[open + 1..close].iter().collect()));
        }
        line += literal.iter().filter(|&&x| x == '\n').count();
        i = end;
    }
    out
}
