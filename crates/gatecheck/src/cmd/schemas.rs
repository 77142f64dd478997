//! `gatecheck schemas`: list, show and apply the contract's JSON Schemas, and print the OpenAPI
//! document.
//!
//! Exit codes: [`exit::PASSED`] valid (or success), [`exit::DIFFERENCES`] the instance is
//! invalid, [`exit::ERROR`] an unknown schema name or an unreadable file.

use anyhow::{bail, Context};
use gatecheck_conformance::exit;
use gatecheck_schemas::ValidationError;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The largest instance `validate` reads (64 MiB).
const MAX_INSTANCE_BYTES: u64 = 64 * 1024 * 1024;

/// Subcommands of `gatecheck schemas`.
#[derive(Debug, clap::Subcommand)]
pub enum SchemasCommand {
    /// List the resource schemas, with their titles.
    List,
    /// Print the JSON Schema of a resource.
    Show {
        /// Resource name, e.g. `video-task` (see `gatecheck schemas list`).
        name: String,
        /// Print it self-contained: the shared definitions it references copied under `$defs`
        /// (for other validators and code generators).
        #[arg(long)]
        bundled: bool,
    },
    /// Validate a JSON document (a captured body) against a resource schema.
    ///
    /// Prints each violation with its instance path and the rule broken. A `curl -i` capture
    /// (status line and headers before the body) is accepted. Exit code 0 when valid, 1 when
    /// invalid, 2 for an unknown schema or an unreadable file.
    Validate {
        /// Resource name, e.g. `video-task` (see `gatecheck schemas list`).
        name: String,
        /// The JSON file to check; `-` reads standard input.
        file: PathBuf,
    },
    /// Print the OpenAPI 3.1 document of every route (the content of `schemas/openapi.json`).
    Openapi,
}

/// Runs the subcommand and returns the exit code.
pub fn run(command: SchemasCommand) -> u8 {
    let mut out = std::io::stdout().lock();
    let result = match command {
        SchemasCommand::List => list(&mut out),
        SchemasCommand::Show { name, bundled } => show(&mut out, &name, bundled),
        SchemasCommand::Validate { name, file } => validate(&mut out, &name, &file),
        SchemasCommand::Openapi => out
            .write_all(gatecheck_schemas::openapi_json().as_bytes())
            .map(|()| exit::PASSED)
            .map_err(Into::into),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        exit::ERROR
    })
}

fn list(out: &mut impl Write) -> anyhow::Result<u8> {
    let width = gatecheck_schemas::schema_names()
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    for name in gatecheck_schemas::schema_names() {
        let title = gatecheck_schemas::schema(name)
            .and_then(|s| s.get("title"))
            .and_then(Value::as_str)
            .unwrap_or("");
        writeln!(out, "{name:<width$}  {title}")?;
    }
    Ok(exit::PASSED)
}

/// The schema of `name`, or a usage error naming the known schemas.
fn lookup(name: &str) -> anyhow::Result<&'static Value> {
    match gatecheck_schemas::schema(name) {
        Some(schema) => Ok(schema),
        None => bail!(
            "unknown schema {name:?}; known schemas: {}",
            gatecheck_schemas::schema_names().join(", ")
        ),
    }
}

fn show(out: &mut impl Write, name: &str, bundled: bool) -> anyhow::Result<u8> {
    let schema = lookup(name)?;
    let text = if bundled {
        serde_json::to_string_pretty(&gatecheck_schemas::bundled(name)?)?
    } else {
        serde_json::to_string_pretty(schema)?
    };
    writeln!(out, "{text}")?;
    Ok(exit::PASSED)
}

/// Reads at most [`MAX_INSTANCE_BYTES`] from `file` (`-` is standard input).
fn read_instance(file: &Path) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let limit = MAX_INSTANCE_BYTES + 1;
    if file.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
    } else {
        std::fs::File::open(file)
            .and_then(|f| f.take(limit).read_to_end(&mut bytes))
            .with_context(|| format!("cannot read {}", file.display()))?;
    }
    if bytes.len() as u64 > MAX_INSTANCE_BYTES {
        bail!(
            "{} is larger than {} MiB",
            file.display(),
            MAX_INSTANCE_BYTES >> 20
        );
    }
    Ok(bytes)
}

/// The body of a capture: the bytes themselves, or, for a `curl -i` capture (status line and
/// headers first), what follows the last header block.
fn body_of(bytes: &[u8]) -> &[u8] {
    let mut rest = bytes;
    while rest.starts_with(b"HTTP/") {
        let end = [&b"\r\n\r\n"[..], &b"\n\n"[..]]
            .iter()
            .filter_map(|sep| {
                rest.windows(sep.len())
                    .position(|w| w == *sep)
                    .map(|i| i + sep.len())
            })
            .min();
        match end {
            Some(end) => rest = &rest[end..],
            None => return rest,
        }
    }
    rest
}

fn validate(out: &mut impl Write, name: &str, file: &Path) -> anyhow::Result<u8> {
    lookup(name)?;
    let shown = if file.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        file.display().to_string()
    };
    let bytes = read_instance(file)?;
    let instance: Value = match serde_json::from_slice(body_of(&bytes)) {
        Ok(v) => v,
        Err(e) => {
            writeln!(out, "invalid: {shown} is not JSON: {e}")?;
            return Ok(exit::DIFFERENCES);
        }
    };
    match gatecheck_schemas::validate(name, &instance) {
        Ok(()) => {
            writeln!(out, "valid: {shown} is a valid {name}")?;
            Ok(exit::PASSED)
        }
        Err(ValidationError::Invalid {
            violations,
            omitted,
            ..
        }) => {
            let total = violations.len() + omitted;
            let plural = if total == 1 { "" } else { "s" };
            writeln!(
                out,
                "invalid: {shown} is not a valid {name} ({total} violation{plural})"
            )?;
            for v in &violations {
                let path = if v.instance_path.is_empty() {
                    "(root)"
                } else {
                    v.instance_path.as_str()
                };
                writeln!(out, "  {path}: {}", v.message)?;
                writeln!(out, "    rule: {} at {}", v.keyword, v.schema_path)?;
            }
            if omitted > 0 {
                writeln!(out, "  ... and {omitted} more")?;
            }
            Ok(exit::DIFFERENCES)
        }
        Err(other) => Err(other.into()),
    }
}
