//! `tenantsim plot RESULTS`.

use std::path::{Path, PathBuf};

use super::args::PlotArgs;
use crate::core::error::Result;
use crate::core::io::{Protected, StagedDir, prepare_target};
use crate::present::figures::{PLOTS_DIR, PlotOptions, canvas_for, plot_dir};

/// Draw the figures of a results folder and say what was written. With
/// `--out`, the figures are staged and replace that folder as a whole,
/// like a results folder.
pub fn plot(args: &PlotArgs) -> Result<()> {
    let opts = PlotOptions {
        format: args.format,
        canvas: canvas_for(args.style, args.size, args.width)?,
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
        tenant: args.tenant.clone(),
    };
    let (done, out) = match &args.out {
        Some(out) => {
            crate::core::interrupt::install_handler();
            let inputs = [Protected {
                what: "the results folder being plotted",
                path: &args.results,
            }];
            for note in prepare_target(out, args.force, &inputs)? {
                eprintln!("warning: {note}");
            }
            let staged = StagedDir::new(out)?;
            let mut done = plot_dir(&args.results, Some(staged.path()), &opts)?;
            // Name the files where they will be, not where they were drawn.
            done.files = done
                .files
                .iter()
                .map(|f| moved(f, staged.path(), out))
                .collect();
            staged.commit()?;
            (done, out.clone())
        }
        None => (
            plot_dir(&args.results, None, &opts)?,
            args.results.join(PLOTS_DIR),
        ),
    };
    for note in &done.notes {
        eprintln!("note: {note}");
    }
    eprintln!("wrote {} file(s) to {}", done.files.len(), out.display());
    for f in &done.files {
        eprintln!("  {}", f.display());
    }
    Ok(())
}

fn moved(file: &Path, from: &Path, to: &Path) -> PathBuf {
    file.strip_prefix(from)
        .map_or_else(|_| file.to_path_buf(), |rest| to.join(rest))
}
