//! Line charts with error bars, written as PNG and SVG side by side (plotters). Generic: a chart
//! is a title, axis labels and named series of points, each point with an optional interval.
//!
//! Text is laid out with a TrueType font found at run time (`SOWING_FONT`, then the usual DejaVu
//! and Liberation paths); without one no chart is drawn and the error says how to supply a font.

// Used by `train` (feature torch) and by `compare`; without the feature parts may go unused.
#![cfg_attr(not(feature = "torch"), allow(dead_code))]

use plotters::prelude::*;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One point of a series: `x`, `y`, and optionally the interval `(low, high)` around `y`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Horizontal position.
    pub x: f64,
    /// Value.
    pub y: f64,
    /// Interval drawn as an error bar, if any.
    pub interval: Option<(f64, f64)>,
}

/// A named line.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points in order of `x`.
    pub points: Vec<Point>,
}

/// A chart of several lines.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// Caption at the top.
    pub title: String,
    /// Horizontal axis label.
    pub x_label: String,
    /// Vertical axis label.
    pub y_label: String,
    /// Fixed vertical range; `None` fits the data and intervals.
    pub y_range: Option<(f64, f64)>,
    /// The lines.
    pub series: Vec<Series>,
}

/// Why a chart was not written.
#[derive(Debug)]
pub enum PlotError {
    /// The chart has no points.
    Empty,
    /// No font to lay text out with.
    NoFont,
    /// plotters failed (with the file it was writing).
    Draw(PathBuf, String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Empty => f.write_str("nothing to plot: the chart has no points"),
            PlotError::NoFont => f.write_str(
                "no TrueType font found for the plots (set SOWING_FONT=/path/to/font.ttf or \
                 install fonts-dejavu-core)",
            ),
            PlotError::Draw(p, e) => write!(f, "drawing {}: {e}", p.display()),
        }
    }
}

impl std::error::Error for PlotError {}

const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
];

/// Register a sans-serif font with plotters once; whether one was found.
fn font_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        let from_env = std::env::var("SOWING_FONT").ok();
        let candidates = from_env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS.iter().copied());
        for path in candidates {
            if let Ok(bytes) = std::fs::read(path) {
                // plotters keeps the font for the life of the program.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        false
    })
}

/// A chart that draws itself on any plotters backend.
trait Drawing {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);

    /// Draw the chart on `root`.
    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), String>;
}

/// Write `chart` as `<stem>.svg` and `<stem>.png`; returns the paths written.
fn write_chart(chart: &impl Drawing, stem: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    // Both backends lay text out with the registered font.
    if !font_ready() {
        return Err(PlotError::NoFont);
    }
    render(chart, SVGBackend::new(&svg, chart.size()), &svg)?;
    render(chart, BitMapBackend::new(&png, chart.size()), &png)?;
    Ok(vec![png, svg])
}

/// Draw `chart` with `backend`, which writes `path`.
fn render<DB: DrawingBackend>(
    chart: &impl Drawing,
    backend: DB,
    path: &Path,
) -> Result<(), PlotError> {
    let root = backend.into_drawing_area();
    chart
        .draw_on(&root)
        .map_err(|e| PlotError::Draw(path.to_owned(), e))?;
    root.present()
        .map_err(|e| PlotError::Draw(path.to_owned(), e.to_string()))
}

/// The frame every chart is drawn in: its caption and the room for the axes' labels.
fn frame<'a, 'b, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, plotters::coord::Shift>,
    title: &'b str,
) -> ChartBuilder<'a, 'b, DB> {
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(60);
    builder
}

/// The legend of every series, boxed, at `position`.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    ctx: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(position)
        .draw()
        .map_err(|e| e.to_string())
}

/// Write `chart` as `<stem>.svg` and `<stem>.png`; returns the paths written.
pub fn write_line_chart(chart: &LineChart, stem: &Path) -> Result<Vec<PathBuf>, PlotError> {
    write_chart(&finite_part(chart), stem)
}

/// The chart without its points that are not finite, and without intervals that are not: laying
/// out an axis over an infinite or NaN range, plotters never returns (a diverged Elo fit once
/// left `sowing compare` drawing for ever).
fn finite_part(chart: &LineChart) -> LineChart {
    let mut out = chart.clone();
    for series in &mut out.series {
        series.points.retain(|p| p.x.is_finite() && p.y.is_finite());
        for p in &mut series.points {
            if p.interval
                .is_some_and(|(lo, hi)| !(lo.is_finite() && hi.is_finite()))
            {
                p.interval = None;
            }
        }
    }
    out.y_range = out
        .y_range
        .filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && lo < hi);
    out
}

/// The ranges that hold every point and interval, padded a little.
fn ranges(chart: &LineChart) -> Option<((f64, f64), (f64, f64))> {
    let points = chart.series.iter().flat_map(|s| &s.points);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in points {
        x0 = x0.min(p.x);
        x1 = x1.max(p.x);
        let (lo, hi) = p.interval.unwrap_or((p.y, p.y));
        y0 = y0.min(p.y.min(lo));
        y1 = y1.max(p.y.max(hi));
    }
    if x0 > x1 {
        return None;
    }
    let pad = |a: f64, b: f64| {
        let d = if b > a { (b - a) * 0.05 } else { 1.0 };
        (a - d, b + d)
    };
    let y = chart.y_range.unwrap_or_else(|| pad(y0, y1));
    Some((pad(x0, x1), y))
}

impl Drawing for LineChart {
    fn size(&self) -> (u32, u32) {
        (900, 560)
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), String> {
        let chart = self;
        let ((x0, x1), (y0, y1)) = ranges(chart).ok_or_else(|| PlotError::Empty.to_string())?;
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(err)?;
        let mut ctx = frame(root, &chart.title)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        ctx.configure_mesh()
            .x_desc(&chart.x_label)
            .y_desc(&chart.y_label)
            .draw()
            .map_err(err)?;
        for (i, series) in chart.series.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            let line = series.points.iter().map(|p| (p.x, p.y));
            ctx.draw_series(LineSeries::new(line, colour.stroke_width(2)))
                .map_err(err)?
                .label(series.label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
            ctx.draw_series(
                series
                    .points
                    .iter()
                    .map(|p| Circle::new((p.x, p.y), 3, colour.filled())),
            )
            .map_err(err)?;
            let bars = series.points.iter().filter_map(|p| {
                p.interval.map(|(lo, hi)| {
                    ErrorBar::new_vertical(p.x, lo, p.y, hi, colour.stroke_width(1), 8)
                })
            });
            ctx.draw_series(bars).map_err(err)?;
        }
        legend(&mut ctx, SeriesLabelPosition::LowerRight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> LineChart {
        let points = |k: f64| {
            (0..5)
                .map(|i| Point {
                    x: f64::from(i),
                    y: k * f64::from(i),
                    interval: Some((k * f64::from(i) - 0.5, k * f64::from(i) + 0.5)),
                })
                .collect()
        };
        LineChart {
            title: "test".to_string(),
            x_label: "x".to_string(),
            y_label: "y".to_string(),
            y_range: None,
            series: vec![
                Series {
                    label: "a".to_string(),
                    points: points(1.0),
                },
                Series {
                    label: "b".to_string(),
                    points: points(2.0),
                },
            ],
        }
    }

    #[test]
    fn a_chart_is_written_as_png_and_svg() {
        let dir = std::env::temp_dir().join(format!("sowing-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        match write_line_chart(&chart(), &dir.join("chart")) {
            Ok(paths) => {
                let png = std::fs::read(&paths[0]).unwrap();
                assert_eq!(&png[..4], b"\x89PNG");
                let svg = std::fs::read_to_string(&paths[1]).unwrap();
                assert!(svg.contains("<svg") && svg.contains("test"));
            }
            Err(PlotError::NoFont) => {}
            Err(e) => panic!("{e}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ranges_hold_every_interval_and_an_empty_chart_is_refused() {
        let ((x0, x1), (y0, y1)) = ranges(&chart()).unwrap();
        assert!(x0 < 0.0 && x1 > 4.0 && y0 < -0.5 && y1 > 8.5);
        let empty = LineChart {
            series: Vec::new(),
            ..chart()
        };
        assert!(ranges(&empty).is_none());
    }

    #[test]
    fn points_and_intervals_that_are_not_finite_are_left_out() {
        let mut bad = chart();
        bad.series[0].points[1].y = f64::NAN;
        bad.series[0].points[2].interval = Some((f64::NEG_INFINITY, 3.0));
        bad.series[1].points[3].x = f64::INFINITY;
        bad.y_range = Some((0.0, f64::INFINITY));
        let finite = finite_part(&bad);
        assert_eq!(finite.series[0].points.len(), 4);
        assert_eq!(finite.series[0].points[1].interval, None);
        assert_eq!(finite.series[1].points.len(), 4);
        assert_eq!(finite.y_range, None);
        let ((x0, x1), (y0, y1)) = ranges(&finite).unwrap();
        assert!([x0, x1, y0, y1].iter().all(|v| v.is_finite()));
        assert!(x0 < 0.0 && x1 > 4.0 && y0 < -0.5 && y1 > 8.5);
        // A chart with nothing finite left has nothing to draw.
        let mut none = chart();
        for series in &mut none.series {
            for p in &mut series.points {
                p.y = f64::NAN;
            }
        }
        assert!(ranges(&finite_part(&none)).is_none());
    }
}

/// Bars in groups: one group per category (a variant), one bar per series (an agent) in each,
/// every bar with an optional interval drawn as an error bar.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// Caption at the top.
    pub title: String,
    /// Vertical axis label.
    pub y_label: String,
    /// Fixed vertical range; `None` runs from zero to the highest bar or interval.
    pub y_range: Option<(f64, f64)>,
    /// Category names, left to right.
    pub groups: Vec<String>,
    /// The series; each has one value per group.
    pub series: Vec<BarSeries>,
}

/// A bar's value and its interval (low, high), if it has one.
pub type Bar = (f64, Option<(f64, f64)>);

/// One bar per group: `None` where the value was not measured (no bar is drawn).
#[derive(Clone, Debug, PartialEq)]
pub struct BarSeries {
    /// Legend label.
    pub label: String,
    /// Per group: the bar, or `None`.
    pub values: Vec<Option<Bar>>,
}

/// Write `chart` as `<stem>.svg` and `<stem>.png`; returns the paths written.
pub fn write_bar_chart(chart: &BarChart, stem: &Path) -> Result<Vec<PathBuf>, PlotError> {
    write_chart(chart, stem)
}

impl Drawing for BarChart {
    /// Wide enough for a label under every group.
    fn size(&self) -> (u32, u32) {
        ((240 + 110 * self.groups.len()).max(700) as u32, 560)
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), String> {
        let chart = self;
        let values = chart.series.iter().flat_map(|s| s.values.iter().flatten());
        let top = values
            .map(|(v, i)| i.map_or(*v, |(_, hi)| hi.max(*v)))
            .fold(f64::MIN, f64::max);
        if chart.groups.is_empty() || top == f64::MIN {
            return Err(PlotError::Empty.to_string());
        }
        let (y0, y1) = chart
            .y_range
            .unwrap_or((0.0, if top > 0.0 { top * 1.35 } else { 1.0 }));
        // (The headroom above the bars keeps the legend off them.)
        let n = chart.groups.len();
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(err)?;
        let mut ctx = frame(root, &chart.title)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, y0..y1)
            .map_err(err)?;
        let groups = chart.groups.clone();
        ctx.configure_mesh()
            .disable_x_mesh()
            .x_labels(n + 1)
            .x_label_formatter(&move |x| {
                let g = x.round();
                if (x - g).abs() < 1e-6 && g >= 0.0 && (g as usize) < groups.len() {
                    groups[g as usize].clone()
                } else {
                    String::new()
                }
            })
            .y_desc(&chart.y_label)
            .draw()
            .map_err(err)?;
        let width = 0.8 / chart.series.len().max(1) as f64;
        for (k, series) in chart.series.iter().enumerate() {
            let colour = Palette99::pick(k).to_rgba();
            let left = |g: usize| g as f64 - 0.4 + k as f64 * width;
            let bars = series.values.iter().enumerate().filter_map(|(g, v)| {
                let (value, _) = (*v)?;
                Some(Rectangle::new(
                    [(left(g), y0.max(0.0)), (left(g) + width * 0.9, value)],
                    colour.filled(),
                ))
            });
            ctx.draw_series(bars)
                .map_err(err)?
                .label(series.label.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.filled())
                });
            let whiskers = series.values.iter().enumerate().filter_map(|(g, v)| {
                let (value, (lo, hi)) = match *v {
                    Some((value, Some(interval))) => (value, interval),
                    _ => return None,
                };
                let x = left(g) + width * 0.45;
                Some(ErrorBar::new_vertical(
                    x,
                    lo,
                    value,
                    hi,
                    BLACK.stroke_width(1),
                    6,
                ))
            });
            ctx.draw_series(whiskers).map_err(err)?;
        }
        legend(&mut ctx, SeriesLabelPosition::UpperRight)
    }
}

#[cfg(test)]
mod bar_tests {
    use super::*;

    #[test]
    fn a_bar_chart_is_written_as_png_and_svg_and_an_empty_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("sowing-bars-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let chart = BarChart {
            title: "bars".to_string(),
            y_label: "share".to_string(),
            y_range: Some((0.0, 1.0)),
            groups: vec!["one".to_string(), "two".to_string()],
            series: vec![
                BarSeries {
                    label: "a".to_string(),
                    values: vec![Some((0.5, Some((0.4, 0.6)))), None],
                },
                BarSeries {
                    label: "b".to_string(),
                    values: vec![Some((0.7, None)), Some((0.2, Some((0.1, 0.3))))],
                },
            ],
        };
        match write_bar_chart(&chart, &dir.join("bars")) {
            Ok(paths) => {
                assert_eq!(&std::fs::read(&paths[0]).unwrap()[..4], b"\x89PNG");
                let svg = std::fs::read_to_string(&paths[1]).unwrap();
                assert!(svg.contains("bars") && svg.contains("two"));
                let empty = BarChart {
                    series: Vec::new(),
                    ..chart
                };
                assert!(matches!(
                    write_bar_chart(&empty, &dir.join("empty")),
                    Err(PlotError::Draw(..))
                ));
            }
            Err(PlotError::NoFont) => {}
            Err(e) => panic!("{e}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
