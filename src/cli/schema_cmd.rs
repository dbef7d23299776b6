//! `tenantsim schema [--json]`: the result files' schemas
//! ([`crate::core::io::schema`]), as Markdown tables or as the JSON document
//! the Python package reads (`python/tenantsim/schema.json`).

use std::io::Write as _;

use crate::core::error::{Error, Result};
use crate::core::io::schema;

/// Arguments of `tenantsim schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Print one JSON document (the file `python/tenantsim/schema.json`)
    /// instead of Markdown tables.
    #[arg(long)]
    pub json: bool,
}

/// Print the schemas on stdout.
pub fn schema(args: &SchemaArgs) -> Result<()> {
    let text = if args.json {
        schema::to_json()
    } else {
        schema::to_markdown()
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::stdout("the schemas", &e))
}
