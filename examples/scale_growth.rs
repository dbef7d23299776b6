//! Draw docs/figures/scale-growth.svg, how peak memory and CPU time grow
//! with the number of tenants (issue 34, docs/PERFORMANCE.md "Internet
//! scale"), from the measurements in docs/figures/scale-growth.csv:
//!
//! ```sh
//! cargo run --release --example scale_growth
//! ```
//!
//! Two series: `at` (every tenant present at t = 0, scale-1m's shape) and
//! `year` (Poisson arrivals over a year, scale-year's shape, the trace
//! lazy). Only measured points are drawn as points. The dashed memory line
//! is the straight line through the first and last `at` measurement,
//! m(n) = m₁ + (n − n₁)·(m₃ − m₁)/(n₃ − n₁), carried on to 10^7 tenants
//! (all present at once: not run). The dotted CPU line is the first `at`
//! measurement's cost per tenant times n, c₁·n/n₁: where the measured
//! points rise above it, time grows faster than the tenants.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;
use tenantsim::present::figures::style::{FAMILY, INK, MUTED, PALETTE, ensure_font};

/// One measured row.
struct Row {
    /// `at` or `year`.
    scenario: String,
    tenants: f64,
    cpu_s: f64,
    rss_gib: f64,
}

fn read(path: &Path) -> Result<Vec<Row>, Box<dyn Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut rows = Vec::new();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header = lines.next().ok_or("empty file")?;
    if header != "scenario,tenants,cpu_s,peak_rss_kib,load" {
        return Err(format!("{}: unexpected header {header:?}", path.display()).into());
    }
    for (i, l) in lines.enumerate() {
        let f: Vec<&str> = l.split(',').collect();
        let num = |k: usize| -> Result<f64, Box<dyn Error>> {
            f.get(k)
                .ok_or_else(|| format!("{}: row {}: too few fields", path.display(), i + 1))?
                .parse::<f64>()
                .map_err(|e| format!("{}: row {}: {e}", path.display(), i + 1).into())
        };
        let scenario = f.first().copied().unwrap_or_default();
        if scenario != "at" && scenario != "year" {
            return Err(format!(
                "{}: row {}: scenario `{scenario}`: expected `at` or `year`",
                path.display(),
                i + 1
            )
            .into());
        }
        rows.push(Row {
            scenario: scenario.to_string(),
            tenants: num(1)?,
            cpu_s: num(2)?,
            // KiB → GiB.
            rss_gib: num(3)? / (1024.0 * 1024.0),
        });
    }
    if rows.iter().filter(|r| r.scenario == "at").count() < 2 {
        return Err("need at least two `at` measurements".into());
    }
    Ok(rows)
}

fn main() -> Result<(), Box<dyn Error>> {
    let root_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/figures");
    let rows = read(&root_dir.join("scale-growth.csv"))?;
    let out = root_dir.join("scale-growth.svg");
    ensure_font()?;
    let at: Vec<&Row> = rows.iter().filter(|r| r.scenario == "at").collect();
    let year: Vec<&Row> = rows.iter().filter(|r| r.scenario == "year").collect();
    let (first, last) = (at[0], at[at.len() - 1]);
    let slope = (last.rss_gib - first.rss_gib) / (last.tenants - first.tenants);
    let memory = |n: f64| first.rss_gib + (n - first.tenants) * slope;
    let per_tenant_cpu = first.cpu_s / first.tenants;

    // The memory axis starts at the decade below the smallest reading
    // (0.1 GiB at most), so no measured point falls below it.
    let smallest = rows.iter().map(|r| r.rss_gib).fold(f64::INFINITY, f64::min);
    let low = 10f64.powf(smallest.log10().floor()).min(0.1);
    let root = SVGBackend::new(&out, (1200, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.margin(10, 10, 10, 20).split_evenly((1, 2));
    let x_range = (5.0e4..2.0e7).log_scale();
    let font = |size: u32| (FAMILY, size).into_font().color(&INK);

    let mut mem = ChartBuilder::on(&panels[0])
        .caption("Peak memory", font(20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x_range.clone(), (low..100.0).log_scale())?;
    mem.configure_mesh()
        .x_desc("tenants")
        .y_desc("peak RSS, GiB")
        .label_style(font(14))
        .axis_desc_style(font(16))
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y}"))
        .draw()?;
    let ext: Vec<(f64, f64)> = (0..=40)
        .map(|i| {
            let n = first.tenants * (2.0e7 / first.tenants).powf(f64::from(i) / 40.0);
            (n, memory(n))
        })
        .collect();
    mem.draw_series(DashedLineSeries::new(
        ext,
        6,
        4,
        ShapeStyle::from(&MUTED).stroke_width(2),
    ))?
    .label(format!(
        "all present: linear, {:.2} KiB a tenant (10^7: not run)",
        slope * 1024.0 * 1024.0
    ))
    .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], MUTED.stroke_width(2)));
    mem.draw_series(LineSeries::new(
        [(5.0e4, 4.0 / 1.073_741_824), (2.0e7, 4.0 / 1.073_741_824)],
        PALETTE[1].stroke_width(1),
    ))?
    .label("scale-1m target, 4 GB")
    .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], PALETTE[1].stroke_width(1)));
    mem.draw_series(DashedLineSeries::new(
        [(5.0e4, 2.0 / 1.073_741_824), (2.0e7, 2.0 / 1.073_741_824)],
        3,
        3,
        PALETTE[2].stroke_width(1),
    ))?
    .label("scale-year target, 2 GB")
    .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], PALETTE[2].stroke_width(1)));
    mem.draw_series(
        at.iter()
            .map(|r| Circle::new((r.tenants, r.rss_gib), 5, PALETTE[0].filled())),
    )?
    .label("measured, all present at t = 0")
    .legend(|(x, y)| Circle::new((x + 10, y), 5, PALETTE[0].filled()));
    mem.draw_series(year.iter().map(|r| {
        Rectangle::new(
            [
                (r.tenants / 1.12, r.rss_gib / 1.12),
                (r.tenants * 1.12, r.rss_gib * 1.12),
            ],
            PALETTE[2].filled(),
        )
    }))?
    .label("measured, arriving over a year (lazy trace)")
    .legend(|(x, y)| Rectangle::new([(x + 5, y - 5), (x + 15, y + 5)], PALETTE[2].filled()));
    mem.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(font(14))
        .background_style(WHITE.mix(0.9))
        .border_style(MUTED)
        .draw()?;

    let mut cpu = ChartBuilder::on(&panels[1])
        .caption("CPU time, user + system", font(20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x_range, (1.0f64..3000.0).log_scale())?;
    cpu.configure_mesh()
        .x_desc("tenants")
        .y_desc("CPU seconds")
        .label_style(font(14))
        .axis_desc_style(font(16))
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y}"))
        .draw()?;
    cpu.draw_series(DashedLineSeries::new(
        [
            (5.0e4, 5.0e4 * per_tenant_cpu),
            (2.0e6, 2.0e6 * per_tenant_cpu),
        ],
        2,
        4,
        ShapeStyle::from(&MUTED).stroke_width(2),
    ))?
    .label(format!(
        "{:.0} µs a tenant (the 10^5 cost)",
        per_tenant_cpu * 1.0e6
    ))
    .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], MUTED.stroke_width(2)));
    cpu.draw_series(std::iter::once(TriangleMarker::new(
        (1.0e6, 60.0),
        7,
        PALETTE[1].filled(),
    )))?
    .label("scale-1m target, 60 s")
    .legend(|(x, y)| TriangleMarker::new((x + 10, y), 7, PALETTE[1].filled()));
    cpu.draw_series(std::iter::once(TriangleMarker::new(
        (1.0e7, 600.0),
        7,
        PALETTE[2].filled(),
    )))?
    .label("scale-year target, 10 min (wall)")
    .legend(|(x, y)| TriangleMarker::new((x + 10, y), 7, PALETTE[2].filled()));
    cpu.draw_series(
        at.iter()
            .map(|r| Circle::new((r.tenants, r.cpu_s), 5, PALETTE[0].filled())),
    )?
    .label("measured, all present at t = 0")
    .legend(|(x, y)| Circle::new((x + 10, y), 5, PALETTE[0].filled()));
    cpu.draw_series(year.iter().map(|r| {
        Rectangle::new(
            [
                (r.tenants / 1.12, r.cpu_s / 1.12),
                (r.tenants * 1.12, r.cpu_s * 1.12),
            ],
            PALETTE[2].filled(),
        )
    }))?
    .label("measured, arriving over a year (lazy trace)")
    .legend(|(x, y)| Rectangle::new([(x + 5, y - 5), (x + 15, y + 5)], PALETTE[2].filled()));
    cpu.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(font(14))
        .background_style(WHITE.mix(0.9))
        .border_style(MUTED)
        .draw()?;
    root.present()?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
