//! A fast, non-cryptographic hash of a position for the transposition table. `State` derives
//! `Hash` (board words, captures, player to move, ply, rules), so hashing goes through the public
//! API; this hasher only makes it cheap: one multiply per word, a final mix for the low bits
//! that index the table.

use sowing_env::State;
use std::hash::{Hash, Hasher};

/// An FxHash-style word hasher: rotate, xor, multiply.
#[derive(Clone, Copy, Debug, Default)]
struct WordHasher(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl WordHasher {
    #[inline(always)]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(26) ^ word).wrapping_mul(K);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // Murmur3's finaliser, so that every bit of the key depends on every input bit.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// A 64-bit key for `state`: equal states give equal keys; different ones collide with
/// probability about 2^-64.
#[inline]
pub fn state_key(state: &State) -> u64 {
    let mut h = WordHasher::default();
    state.hash(&mut h);
    h.finish()
}
