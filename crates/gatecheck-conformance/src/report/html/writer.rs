//! A small HTML writer that escapes everything it is not told is markup.
//!
//! Text and attribute values are always escaped. Tag and attribute names, and the only markup
//! written as is (the page's own style sheet and script), are `&'static str`: nothing a target
//! or a user sends can reach the page unescaped.

/// An HTML document being written.
#[derive(Debug, Default)]
pub(crate) struct Html {
    out: String,
}

/// Attributes of an element: static names, escaped values.
pub(crate) type Attrs<'a> = &'a [(&'static str, &'a str)];

impl Html {
    /// An empty document.
    pub fn new() -> Self {
        Self::default()
    }

    /// Markup of the page itself, written as is (only static text can be).
    pub fn raw(&mut self, markup: &'static str) {
        self.out.push_str(markup);
    }

    /// Text, escaped.
    pub fn text(&mut self, text: &str) {
        escape_into(&mut self.out, text);
    }

    /// An opening tag with its attributes (values escaped).
    pub fn open(&mut self, tag: &'static str, attrs: Attrs<'_>) {
        self.out.push('<');
        self.out.push_str(tag);
        for (name, value) in attrs {
            self.out.push(' ');
            self.out.push_str(name);
            self.out.push_str("=\"");
            escape_into(&mut self.out, value);
            self.out.push('"');
        }
        self.out.push('>');
    }

    /// A closing tag.
    pub fn close(&mut self, tag: &'static str) {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
    }

    /// An element whose content `inner` writes.
    pub fn el(&mut self, tag: &'static str, attrs: Attrs<'_>, inner: impl FnOnce(&mut Html)) {
        self.open(tag, attrs);
        inner(self);
        self.close(tag);
    }

    /// An element holding only text.
    pub fn leaf(&mut self, tag: &'static str, attrs: Attrs<'_>, text: &str) {
        self.open(tag, attrs);
        self.text(text);
        self.close(tag);
    }

    /// A void element (`img`, `meta`, `input`...): no content, no closing tag.
    pub fn void(&mut self, tag: &'static str, attrs: Attrs<'_>) {
        self.open(tag, attrs);
    }

    /// The document written.
    pub fn finish(self) -> String {
        self.out
    }
}

/// Escapes `&`, `<`, `>`, `"` and `'`: safe in text and in quoted attribute values; and
/// every control character first, as [`crate::terminal::escape`] does for every human output.
pub(crate) fn escape_into(out: &mut String, text: &str) {
    let text = &*crate::terminal::escape(text);
    let mut last = 0;
    for (i, b) in text.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&text[last..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped() {
        let mut h = Html::new();
        h.el("p", &[("title", "a\"b'<c>&")], |h| {
            h.text("<script>alert(1)</script> & é");
        });
        assert_eq!(
            h.finish(),
            "<p title=\"a&quot;b&#39;&lt;c&gt;&amp;\">&lt;script&gt;alert(1)&lt;/script&gt; &amp; é</p>"
        );
    }
}
