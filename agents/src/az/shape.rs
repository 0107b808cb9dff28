//! The shape of a policy-value network ([`NetConfig`], its [`Body`]), apart from the network
//! itself so that checkpoints are read, written and checked without libtorch (the Python
//! package builds without it).

use crate::features::input_len;
use serde::{Deserialize, Serialize};
use sowing_env::MAX_HOLES;

/// The shape of a network; saved with every checkpoint so the network can be rebuilt to load it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetConfig {
    /// Holes per row of the game it plays.
    pub holes: usize,
    /// Width of the hidden layers.
    pub hidden: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Whether the input holds the one-move look-ahead features (networks saved before they
    /// existed have none).
    #[serde(default)]
    pub lookahead: bool,
    /// The body between input and heads (networks saved before there was a choice are MLPs).
    #[serde(default)]
    pub body: Body,
    /// The widest board its weights serve, for an MLP shared by boards of several sizes: its
    /// layers are laid out for `span` holes per row, a smaller board's input is spread into
    /// them with the board's size as an input (see the network's `spread`), so that the same
    /// weights play every board of `holes <= span`. `None` (every network saved before there
    /// was a choice): laid out for `holes` alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<usize>,
}

/// The body of a network (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Body {
    /// A residual MLP over the whole input.
    #[default]
    Mlp,
    /// A residual circular 1-D convolution over the ring of holes.
    Ring,
}

impl std::fmt::Display for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Body::Mlp => "mlp",
            Body::Ring => "ring",
        })
    }
}

impl NetConfig {
    /// Length of the input vector: observation `2n + 2`, look-ahead `3n` if any, legal mask `n`.
    pub fn input_len(&self) -> usize {
        input_len(self.holes, self.lookahead)
    }

    /// Whether it plays boards of `holes` holes per row: its own, or any up to its span.
    pub fn plays(&self, holes: usize) -> bool {
        holes == self.holes || self.span.is_some_and(|span| holes <= span)
    }

    /// Holes per row its layers are laid out for: `span`, or the board's own.
    pub fn width(&self) -> usize {
        self.span.unwrap_or(self.holes)
    }

    /// Values its first layer reads: the input of a board of [`NetConfig::width`] holes, and
    /// with a span one more per hole of the span, the board size as a one-hot.
    pub fn layer_input_len(&self) -> usize {
        let spread = if self.span.is_some() { self.width() } else { 0 };
        input_len(self.width(), self.lookahead) + spread
    }

    /// The shape of its weights alone: a network with a span has the same weights whichever
    /// board it plays, so its `holes` reads as the span's.
    pub fn weights_shape(&self) -> NetConfig {
        NetConfig {
            holes: self.width(),
            ..*self
        }
    }

    /// Why this shape cannot be built, if it cannot: a span narrower than the board, wider
    /// than any board, or on a body other than the MLP (the ring serves every size as it is,
    /// but for its value head).
    pub fn check_span(&self) -> Result<(), String> {
        let Some(span) = self.span else {
            return Ok(());
        };
        if self.body != Body::Mlp {
            return Err(format!(
                "a span is for the mlp body; the {} body cannot take one",
                self.body
            ));
        }
        if !(self.holes..=MAX_HOLES).contains(&span) {
            return Err(format!(
                "span {span} cannot serve a board of {} holes per row: it must be {} to \
                 {MAX_HOLES}",
                self.holes, self.holes
            ));
        }
        Ok(())
    }

    /// Channels per hole of the ring body: seeds, the mover's-row flag, the two stores, legal,
    /// and the three look-ahead features if any.
    pub fn ring_channels(&self) -> usize {
        if self.lookahead { 8 } else { 5 }
    }
}

impl std::str::FromStr for Body {
    type Err = String;

    fn from_str(text: &str) -> Result<Body, String> {
        match text {
            "mlp" => Ok(Body::Mlp),
            "ring" => Ok(Body::Ring),
            other => Err(format!("unknown network body {other:?}; known: mlp, ring")),
        }
    }
}
