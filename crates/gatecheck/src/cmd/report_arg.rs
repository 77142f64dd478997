//! `--report FORMAT=FILE`, shared by `check` and `diff`: which report to write, and where.

use anyhow::Context as _;
use std::path::PathBuf;

/// A report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The JSON report.
    Json,
    /// JUnit XML.
    Junit,
    /// One self-contained HTML page.
    Html,
    /// A Markdown summary for a CI job page (`check` only).
    Markdown,
}

/// One `--report FORMAT=FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportOut {
    /// The format.
    pub format: ReportFormat,
    /// Where to write it.
    pub path: PathBuf,
}

impl ReportOut {
    /// Writes `text` to the report's file, and says so on stderr (`gatecheck <command>: html
    /// report written to PATH`).
    pub fn write(&self, command: &str, text: &str) -> anyhow::Result<()> {
        write_report(command, self.format, &self.path, text)
    }
}

/// Writes a report's `text` to `path`, then prints `gatecheck <command>: <format> report
/// written to <path>` on stderr.
pub fn write_report(
    command: &str,
    format: ReportFormat,
    path: &std::path::Path,
    text: &str,
) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    let name = match format {
        ReportFormat::Json => "JSON",
        ReportFormat::Junit => "JUnit",
        ReportFormat::Html => "HTML",
        ReportFormat::Markdown => "Markdown",
    };
    eprintln!(
        "gatecheck {command}: {name} report written to {}",
        path.display()
    );
    Ok(())
}

/// Parses `json=FILE`, `junit=FILE`, `html=FILE` or `markdown=FILE`.
pub fn parse(s: &str) -> Result<ReportOut, String> {
    let (format, path) = s
        .split_once('=')
        .filter(|(_, path)| !path.is_empty())
        .ok_or_else(|| {
            format!("expected FORMAT=FILE (json, junit, html or markdown), got {s:?}")
        })?;
    let format = match format {
        "json" => ReportFormat::Json,
        "junit" => ReportFormat::Junit,
        "html" => ReportFormat::Html,
        "markdown" => ReportFormat::Markdown,
        other => {
            return Err(format!(
                "unknown report format {other:?}: expected json, junit, html or markdown"
            ))
        }
    };
    Ok(ReportOut {
        format,
        path: PathBuf::from(path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_format_and_refuses_the_rest() {
        assert_eq!(parse("html=r.html").unwrap().format, ReportFormat::Html);
        assert_eq!(
            parse("json=a=b.json").unwrap().path,
            PathBuf::from("a=b.json")
        );
        assert_eq!(parse("junit=x.xml").unwrap().format, ReportFormat::Junit);
        assert_eq!(
            parse("markdown=s.md").unwrap().format,
            ReportFormat::Markdown
        );
        assert!(parse("xml=out")
            .unwrap_err()
            .contains("unknown report format"));
        assert!(parse("html=").is_err());
        assert!(parse("report.html").is_err());
    }
}
