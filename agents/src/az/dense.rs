//! A dense layer's product, `out = x W^T + b`, for the network's forward pass at play
//! ([`super::inference`]). The weights are packed once, when the layer is copied, into panels
//! of [`PANEL`] output columns, each panel's `inputs x PANEL` values in one run: a product then
//! reads them as they lie. A general matrix product packs the whole weight matrix again on
//! every call, which on a search's passes of 8 to 64 positions cost as much as the arithmetic
//! (`docs/strength.md`, "The forward pass with its weights packed once").
//!
//! Every row is computed on its own and in one order (the bias, then the inputs in turn, then
//! what `Output` asks), so a position's outputs do not depend on the other positions of its
//! pass. The kernel is chosen once per machine ([`Kernel::best`]): AVX-512 (8 rows by 32
//! columns in registers), AVX2 with FMA (6 rows by 16), else portable code; the first two round
//! each multiply-add once, the portable code twice, so machines may differ in the last bits.

/// Output columns a panel holds: one AVX-512 register of `f32`, two of AVX2.
pub const PANEL: usize = 16;

/// Which code computes a product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512F registers of 16 floats.
    Avx512,
    /// AVX2 registers of 8 floats, with fused multiply-adds.
    Avx2,
    /// Plain loops, for any machine.
    Portable,
}

impl Kernel {
    /// The fastest kernel this machine runs.
    pub fn best() -> Kernel {
        Kernel::available()[0]
    }

    /// The kernels this machine runs, fastest first ([`Kernel::Portable`] always).
    pub fn available() -> Vec<Kernel> {
        let mut kernels = Vec::with_capacity(3);
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                kernels.push(Kernel::Avx512);
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                kernels.push(Kernel::Avx2);
            }
        }
        kernels.push(Kernel::Portable);
        kernels
    }
}

/// What a product does with its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `out = x W^T + b`.
    Write,
    /// `out = max(x W^T + b, 0)`.
    Relu,
    /// `out += x W^T + b` (a residual connection).
    Add,
}

/// A dense layer: its weights in panels, its bias padded to whole panels.
#[derive(Clone)]
pub struct Dense {
    /// Panel `p` holds, for each input `i` in turn, the weights of columns `p * PANEL ..
    /// (p + 1) * PANEL` (zeros past the last output).
    panels: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
    kernel: Kernel,
}

impl std::fmt::Debug for Dense {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The weights are thousands of floats: the shape and the kernel say which layer it is.
        f.debug_struct("Dense")
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .field("kernel", &self.kernel)
            .finish_non_exhaustive()
    }
}

impl Dense {
    /// The layer of `weight` (`[outputs, inputs]`, row-major, as libtorch keeps it) and `bias`
    /// (`outputs` values), computed by [`Kernel::best`].
    ///
    /// # Panics
    /// If `inputs` is 0, or `weight` or `bias` does not hold that many values.
    pub fn new(weight: &[f32], bias: &[f32], inputs: usize, outputs: usize) -> Dense {
        assert!(inputs > 0, "a layer reads at least one input");
        assert_eq!(
            weight.len(),
            inputs * outputs,
            "{outputs} x {inputs} weights"
        );
        assert_eq!(bias.len(), outputs, "{outputs} biases");
        let count = outputs.div_ceil(PANEL);
        let mut panels = vec![0.0; count * inputs * PANEL];
        for o in 0..outputs {
            let (p, column) = (o / PANEL, o % PANEL);
            for i in 0..inputs {
                panels[(p * inputs + i) * PANEL + column] = weight[o * inputs + i];
            }
        }
        let mut padded = vec![0.0; count * PANEL];
        padded[..outputs].copy_from_slice(bias);
        Dense {
            panels,
            bias: padded,
            inputs,
            outputs,
            kernel: Kernel::best(),
        }
    }

    /// The same layer computed by `kernel`.
    ///
    /// # Panics
    /// If this machine does not run `kernel` (see [`Kernel::available`]).
    pub fn with_kernel(mut self, kernel: Kernel) -> Dense {
        assert!(
            Kernel::available().contains(&kernel),
            "this machine does not run the {kernel:?} kernel"
        );
        self.kernel = kernel;
        self
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    pub fn outputs(&self) -> usize {
        self.outputs
    }

    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    fn panel_count(&self) -> usize {
        self.bias.len() / PANEL
    }

    /// The product for the first `rows` rows of `x` (`[rows, inputs]`, row-major) into the first
    /// `rows` rows of `out` (`[rows, outputs]`), as `output` asks.
    ///
    /// # Panics
    /// If `x` or `out` holds fewer than `rows` rows.
    pub fn apply(&self, x: &[f32], rows: usize, out: &mut [f32], output: Output) {
        assert!(
            x.len() >= rows * self.inputs,
            "{rows} rows of {} inputs",
            self.inputs
        );
        assert!(
            out.len() >= rows * self.outputs,
            "{rows} rows of {} outputs",
            self.outputs
        );
        match self.kernel {
            // SAFETY: the kernel was checked to run on this machine when it was chosen, and the
            // lengths just now.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { avx512::apply(self, x, rows, out, output) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::apply(self, x, rows, out, output) },
            _ => portable(self, x, rows, out, output),
        }
    }
}

/// One value of `out` as `output` asks, from the accumulated `sum` (bias included).
#[inline]
fn finish(output: Output, sum: f32, out: &mut f32) {
    *out = match output {
        Output::Write => sum,
        Output::Relu => sum.max(0.0),
        Output::Add => *out + sum,
    };
}

fn portable(d: &Dense, x: &[f32], rows: usize, out: &mut [f32], output: Output) {
    let k = d.inputs;
    for (r, xr) in x.chunks_exact(k).take(rows).enumerate() {
        let out_row = &mut out[r * d.outputs..(r + 1) * d.outputs];
        for p in 0..d.panel_count() {
            let mut acc = [0.0f32; PANEL];
            acc.copy_from_slice(&d.bias[p * PANEL..(p + 1) * PANEL]);
            let panel = &d.panels[p * k * PANEL..(p + 1) * k * PANEL];
            for (&xv, w) in xr.iter().zip(panel.chunks_exact(PANEL)) {
                for (a, &w) in acc.iter_mut().zip(w) {
                    *a += xv * w;
                }
            }
            let columns = &mut out_row[p * PANEL..d.outputs.min((p + 1) * PANEL)];
            for (o, &sum) in columns.iter_mut().zip(&acc) {
                finish(output, sum, o);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use crate::az::dense::{Dense, Output, PANEL};
    use std::arch::x86_64::*;

    /// Rows a block keeps in registers: 8 rows by 2 panels is 16 of the 32 registers.
    const ROWS: usize = 8;

    /// # Safety
    /// The machine runs AVX-512F; `x` holds `rows` rows of `d.inputs`, `out` of `d.outputs`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn apply(d: &Dense, x: &[f32], rows: usize, out: &mut [f32], output: Output) {
        let panels = d.panel_count();
        let mut r = 0;
        while r < rows {
            let n = (rows - r).min(ROWS);
            let mut p = 0;
            while p < panels {
                let pair = p + 1 < panels;
                macro_rules! block {
                    ($rows:literal) => {
                        // SAFETY: as this function's; the block reads rows r..r + n and panels
                        // p..p + 1 or p + 2, all inside.
                        unsafe {
                            if pair {
                                block::<$rows, 2>(d, x, r, p, out, output)
                            } else {
                                block::<$rows, 1>(d, x, r, p, out, output)
                            }
                        }
                    };
                }
                match n {
                    8 => block!(8),
                    7 => block!(7),
                    6 => block!(6),
                    5 => block!(5),
                    4 => block!(4),
                    3 => block!(3),
                    2 => block!(2),
                    _ => block!(1),
                }
                p += if pair { 2 } else { 1 };
            }
            r += n;
        }
    }

    /// Rows `r0..r0 + R` by panels `p0..p0 + P`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn block<const R: usize, const P: usize>(
        d: &Dense,
        x: &[f32],
        r0: usize,
        p0: usize,
        out: &mut [f32],
        output: Output,
    ) {
        let k = d.inputs;
        let mut acc = [[_mm512_setzero_ps(); P]; R];
        for p in 0..P {
            // SAFETY: the bias holds every panel's PANEL values.
            let b = unsafe { _mm512_loadu_ps(d.bias.as_ptr().add((p0 + p) * PANEL)) };
            for row in acc.iter_mut() {
                row[p] = b;
            }
        }
        let xs = x[r0 * k..].as_ptr();
        let ws = d.panels[p0 * k * PANEL..].as_ptr();
        for i in 0..k {
            let mut w = [_mm512_setzero_ps(); P];
            for (p, w) in w.iter_mut().enumerate() {
                // SAFETY: panel p0 + p < the panel count, input i < k.
                *w = unsafe { _mm512_loadu_ps(ws.add((p * k + i) * PANEL)) };
            }
            for (r, row) in acc.iter_mut().enumerate() {
                // SAFETY: row r0 + r < rows, input i < k.
                let xv = _mm512_set1_ps(unsafe { *xs.add(r * k + i) });
                for (a, &w) in row.iter_mut().zip(&w) {
                    *a = _mm512_fmadd_ps(xv, w, *a);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (p, &sum) in row.iter().enumerate() {
                let column = (p0 + p) * PANEL;
                let valid = (d.outputs - column).min(PANEL);
                let mask: __mmask16 = if valid == PANEL {
                    u16::MAX
                } else {
                    (1u16 << valid) - 1
                };
                // SAFETY: the masked lanes are the row's columns column..column + valid, inside
                // `out`; the others are neither read nor written.
                unsafe {
                    let dst = out.as_mut_ptr().add((r0 + r) * d.outputs + column);
                    let value = match output {
                        Output::Write => sum,
                        Output::Relu => _mm512_max_ps(sum, _mm512_setzero_ps()),
                        Output::Add => _mm512_add_ps(_mm512_maskz_loadu_ps(mask, dst), sum),
                    };
                    _mm512_mask_storeu_ps(dst, mask, value);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use crate::az::dense::{Dense, Output, PANEL, finish};
    use std::arch::x86_64::*;

    /// Rows a block keeps in registers: 6 rows by one panel (two registers) is 12 of the 16.
    const ROWS: usize = 6;

    /// # Safety
    /// The machine runs AVX2 and FMA; `x` holds `rows` rows of `d.inputs`, `out` of
    /// `d.outputs`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn apply(d: &Dense, x: &[f32], rows: usize, out: &mut [f32], output: Output) {
        let mut r = 0;
        while r < rows {
            let n = (rows - r).min(ROWS);
            for p in 0..d.panel_count() {
                macro_rules! block {
                    ($rows:literal) => {
                        // SAFETY: as this function's; the block reads rows r..r + n and panel p.
                        unsafe { block::<$rows>(d, x, r, p, out, output) }
                    };
                }
                match n {
                    6 => block!(6),
                    5 => block!(5),
                    4 => block!(4),
                    3 => block!(3),
                    2 => block!(2),
                    _ => block!(1),
                }
            }
            r += n;
        }
    }

    /// Rows `r0..r0 + R` by panel `p`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn block<const R: usize>(
        d: &Dense,
        x: &[f32],
        r0: usize,
        p: usize,
        out: &mut [f32],
        output: Output,
    ) {
        let k = d.inputs;
        // SAFETY: the bias holds every panel's PANEL values.
        let b = unsafe {
            let b = d.bias.as_ptr().add(p * PANEL);
            [_mm256_loadu_ps(b), _mm256_loadu_ps(b.add(8))]
        };
        let mut acc = [b; R];
        let xs = x[r0 * k..].as_ptr();
        let ws = d.panels[p * k * PANEL..].as_ptr();
        for i in 0..k {
            // SAFETY: panel p < the panel count, input i < k.
            let w = unsafe {
                let w = ws.add(i * PANEL);
                [_mm256_loadu_ps(w), _mm256_loadu_ps(w.add(8))]
            };
            for (r, row) in acc.iter_mut().enumerate() {
                // SAFETY: row r0 + r < rows, input i < k.
                let xv = _mm256_set1_ps(unsafe { *xs.add(r * k + i) });
                row[0] = _mm256_fmadd_ps(xv, w[0], row[0]);
                row[1] = _mm256_fmadd_ps(xv, w[1], row[1]);
            }
        }
        let column = p * PANEL;
        let valid = (d.outputs - column).min(PANEL);
        for (r, row) in acc.iter().enumerate() {
            let mut sums = [0.0f32; PANEL];
            // SAFETY: `sums` holds two registers' values.
            unsafe {
                _mm256_storeu_ps(sums.as_mut_ptr(), row[0]);
                _mm256_storeu_ps(sums.as_mut_ptr().add(8), row[1]);
            }
            let start = (r0 + r) * d.outputs + column;
            for (o, &sum) in out[start..start + valid].iter_mut().zip(&sums) {
                finish(output, sum, o);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `x W^T + b` in f64, row by row, and the sum of the terms' magnitudes (the rounding's
    /// scale).
    fn reference(
        w: &[f32],
        b: &[f32],
        x: &[f32],
        rows: usize,
        k: usize,
        m: usize,
    ) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(rows * m);
        for r in 0..rows {
            for o in 0..m {
                let mut sum = b[o] as f64;
                let mut scale = (b[o] as f64).abs();
                for i in 0..k {
                    let t = x[r * k + i] as f64 * w[o * k + i] as f64;
                    sum += t;
                    scale += t.abs();
                }
                out.push((sum, scale));
            }
        }
        out
    }

    fn values(rng: &mut ChaCha8Rng, len: usize) -> Vec<f32> {
        (0..len).map(|_| rng.random_range(-2.0f32..2.0)).collect()
    }

    /// Every kernel this machine runs, every output mode, against f64 over generated shapes:
    /// rows across a block's edges, inputs from 1, outputs across a panel's and a pair's edges.
    #[test]
    fn every_kernel_matches_the_f64_product() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut shapes = vec![
            (64, 128, 128),
            (64, 50, 128),
            (17, 128, 8),
            (41, 128, 64),
            (9, 64, 1),
        ];
        for _ in 0..60 {
            shapes.push((
                rng.random_range(0..20),
                rng.random_range(1..150),
                rng.random_range(1..70),
            ));
        }
        for &(rows, k, m) in &shapes {
            let w = values(&mut rng, k * m);
            let b = values(&mut rng, m);
            let x = values(&mut rng, rows * k);
            let before = values(&mut rng, rows * m);
            let want = reference(&w, &b, &x, rows, k, m);
            for kernel in Kernel::available() {
                let dense = Dense::new(&w, &b, k, m).with_kernel(kernel);
                for output in [Output::Write, Output::Relu, Output::Add] {
                    // One more row than asked for: it must be left as it was.
                    let mut out = before.clone();
                    out.extend_from_slice(&[9.5; 3]);
                    dense.apply(&x, rows, &mut out, output);
                    assert_eq!(
                        &out[rows * m..],
                        &[9.5; 3],
                        "{kernel:?} wrote past its rows"
                    );
                    for (j, (&got, &(sum, scale))) in out.iter().zip(&want).enumerate() {
                        let expect = match output {
                            Output::Write => sum,
                            Output::Relu => sum.max(0.0),
                            Output::Add => before[j] as f64 + sum,
                        };
                        let tolerance = 1e-6 * (scale + before[j].abs() as f64) + 1e-6;
                        assert!(
                            (got as f64 - expect).abs() <= tolerance,
                            "{kernel:?} {output:?} {rows}x{k}x{m} at {j}: {got} against {expect}"
                        );
                    }
                }
            }
        }
    }

    /// A row's outputs are the same to the bit whatever else is in its pass, and the same from
    /// the two register-blocked kernels' (fused multiply-adds in the same order).
    #[test]
    fn a_rows_outputs_do_not_depend_on_its_pass() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (k, m) = (128, 72);
        let w = values(&mut rng, k * m);
        let b = values(&mut rng, m);
        let x = values(&mut rng, 37 * k);
        let mut fused: Option<Vec<f32>> = None;
        for kernel in Kernel::available() {
            let dense = Dense::new(&w, &b, k, m).with_kernel(kernel);
            let mut whole = vec![0.0; 37 * m];
            dense.apply(&x, 37, &mut whole, Output::Write);
            for r in 0..37 {
                let mut alone = vec![0.0; m];
                dense.apply(&x[r * k..], 1, &mut alone, Output::Write);
                assert_eq!(alone, whole[r * m..(r + 1) * m], "{kernel:?}, row {r}");
            }
            if kernel != Kernel::Portable {
                match &fused {
                    Some(first) => assert_eq!(first, &whole, "{kernel:?} against the first"),
                    None => fused = Some(whole),
                }
            }
        }
    }

    #[test]
    fn no_rows_touch_nothing() {
        let dense = Dense::new(&[1.0; 6], &[0.5; 3], 2, 3);
        let mut out = [7.0; 3];
        dense.apply(&[], 0, &mut out, Output::Write);
        assert_eq!(out, [7.0; 3]);
    }

    #[test]
    #[should_panic(expected = "2 rows of 3 outputs")]
    fn a_short_output_is_refused() {
        let dense = Dense::new(&[1.0; 6], &[0.5; 3], 2, 3);
        dense.apply(&[1.0; 4], 2, &mut [0.0; 5], Output::Write);
    }
}
