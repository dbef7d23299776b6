//! `tenantsim plot RESULTS`.

use super::PlotArgs;
use crate::error::Result;
use crate::plot::{PLOTS_DIR, PlotOptions, plot_dir};

/// Draw the figures of a results folder and say what was written.
pub fn plot(args: &PlotArgs) -> Result<()> {
    let opts = PlotOptions {
        format: args.format,
        size: args.size,
        log_x: if args.log_x {
            Some(true)
        } else if args.linear_x {
            Some(false)
        } else {
            None
        },
        log_y: args.log_y,
        rep: args.rep,
        metrics: args.metric.clone(),
        sweep_x: args.sweep_x.clone(),
    };
    let done = plot_dir(&args.results, args.out.as_deref(), &opts)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.results.join(PLOTS_DIR));
    for note in &done.notes {
        eprintln!("note: {note}");
    }
    eprintln!("wrote {} file(s) to {}", done.files.len(), out.display());
    for f in &done.files {
        eprintln!("  {}", f.display());
    }
    Ok(())
}
