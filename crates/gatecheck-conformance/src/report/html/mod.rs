//! The HTML report: one self-contained page (inline style sheet and script, media as `data:`
//! URIs, no fetch of anything), for a check run ([`to_html`]) or a differential run
//! ([`diff_to_html`]).
//!
//! Every string of the report is escaped by [`writer::Html`]; the page's Content Security
//! Policy also refuses every script but its own (a per-page nonce) and every fetch but `data:`
//! media, so content that a target sent can neither run nor call out. The caller redacts the
//! page as a whole once more ([`crate::Redactor::xml`]).

mod card;
mod check;
mod diff;
mod timeline;
mod writer;

pub use check::to_html;
pub use diff::diff_to_html;

use writer::Html;

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// A whole page: the head (title, viewport, CSP, style), `body`, the script.
fn page(title: &str, body: impl FnOnce(&mut Html)) -> String {
    let nonce = format!(
        "{:016x}{:016x}",
        rand::random::<u64>(),
        rand::random::<u64>()
    );
    let csp = format!(
        "default-src 'none'; img-src data:; media-src data:; style-src 'nonce-{nonce}'; \
         script-src 'nonce-{nonce}'; base-uri 'none'; form-action 'none'"
    );
    let mut h = Html::new();
    h.raw("<!DOCTYPE html>\n");
    h.el("html", &[("lang", "en")], |h| {
        h.el("head", &[], |h| {
            h.void("meta", &[("charset", "utf-8")]);
            h.void(
                "meta",
                &[("http-equiv", "Content-Security-Policy"), ("content", &csp)],
            );
            h.void(
                "meta",
                &[
                    ("name", "viewport"),
                    ("content", "width=device-width, initial-scale=1"),
                ],
            );
            h.leaf("title", &[], title);
            h.open("style", &[("nonce", &nonce)]);
            h.raw(STYLE);
            h.close("style");
        });
        h.el("body", &[], |h| {
            body(h);
            h.open("script", &[("nonce", &nonce)]);
            h.raw(SCRIPT);
            h.close("script");
        });
    });
    h.finish()
}

/// A `<pre>` with a copy button (its id must be unique in the page).
fn pre_copy(h: &mut Html, id: &str, text: &str) {
    h.el("div", &[], |h| {
        h.leaf(
            "button",
            &[("class", "copy"), ("type", "button"), ("data-for", id)],
            "Copy",
        );
        h.leaf("pre", &[("id", id)], text);
    });
}

/// A `<dt>`/`<dd>` pair of text.
fn pair(h: &mut Html, term: &str, text: &str) {
    h.leaf("dt", &[], term);
    h.leaf("dd", &[], text);
}

/// An element id made of `prefix` and the letters, digits, `-`, `_` and `.` of `name`.
fn anchor(prefix: &str, name: &str) -> String {
    let mut id = prefix.to_owned();
    id.extend(name.chars().map(|c| {
        if c.is_ascii_alphanumeric() || "-_.".contains(c) {
            c
        } else {
            '-'
        }
    }));
    id
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_page_has_a_csp_with_a_nonce_on_its_own_style_and_script() {
        let page = super::page("t<", |h| h.text("<b>"));
        assert!(page.contains("<title>t&lt;</title>"));
        assert!(page.contains("&lt;b&gt;"));
        // The policy is an attribute value: its quotes are escaped.
        let nonce = page
            .split("&#39;nonce-")
            .nth(1)
            .unwrap()
            .split('&')
            .next()
            .unwrap();
        assert_eq!(nonce.len(), 32);
        assert!(page.contains(&format!("<style nonce=\"{nonce}\">")));
        assert!(page.contains(&format!("<script nonce=\"{nonce}\">")));
        assert!(!page.contains("http://") && !page.contains("https://"));
    }
}
