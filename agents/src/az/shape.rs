//! The shape of a policy-value network ([`NetConfig`], its [`Body`]), apart from the network
//! itself so that checkpoints are read, written and checked without libtorch (the Python
//! package builds without it).

use crate::features::input_len;
use serde::{Deserialize, Serialize};

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
