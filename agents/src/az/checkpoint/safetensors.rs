//! The safetensors format of `weights.safetensors`, read and written without libtorch: an 8-byte
//! little-endian header length `H`, `H` bytes of JSON mapping each tensor's name to its `dtype`,
//! `shape` and `data_offsets` (`[begin, end)` in the data that follows; an optional
//! `__metadata__` of strings), then the data, little-endian, in C order.
//!
//! Checkpoints hold `F32` tensors only (what both trainers write); the reader refuses anything
//! else, and any damage, with a message that says what is wrong, never a panic.

use std::collections::BTreeMap;

/// One tensor: its shape and its values in C order.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor32 {
    /// The size of each dimension.
    pub shape: Vec<usize>,
    /// `shape.iter().product()` values.
    pub data: Vec<f32>,
}

/// The longest header read (the format's reference reader stops at 100 MB).
pub const MAX_HEADER: u64 = 100 * 1024 * 1024;

/// `tensors` as safetensors bytes, in name order, the data 8-byte aligned.
pub fn encode(tensors: &BTreeMap<String, Tensor32>) -> Result<Vec<u8>, String> {
    let mut header = serde_json::Map::new();
    let mut at = 0usize;
    for (name, t) in tensors {
        let count =
            elements(&t.shape).ok_or_else(|| format!("tensor {name}: its shape overflows"))?;
        if count != t.data.len() {
            return Err(format!(
                "tensor {name} has shape {:?} ({count} values) but {} values",
                t.shape,
                t.data.len()
            ));
        }
        let end = at + 4 * count;
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": t.shape, "data_offsets": [at, end]}),
        );
        at = end;
    }
    let mut json = serde_json::to_vec(&header).expect("a header serialises");
    // The data starts 8-byte aligned, as the format recommends.
    while !json.len().is_multiple_of(8) {
        json.push(b' ');
    }
    let mut bytes = Vec::with_capacity(8 + json.len() + at);
    bytes.extend_from_slice(&(json.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&json);
    for t in tensors.values() {
        for v in &t.data {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    Ok(bytes)
}

/// The tensors of safetensors `bytes`, by name; the error says what is wrong with them.
pub fn decode(bytes: &[u8]) -> Result<BTreeMap<String, Tensor32>, String> {
    if bytes.len() < 8 {
        return Err(format!(
            "{} bytes, fewer than the 8 of the header length",
            bytes.len()
        ));
    }
    let size = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    if size > MAX_HEADER || 8 + size > bytes.len() as u64 {
        return Err(format!(
            "a header of {size} bytes in a file of {}; truncated?",
            bytes.len()
        ));
    }
    let (head, body) = bytes[8..].split_at(size as usize);
    let header: serde_json::Value =
        serde_json::from_slice(head).map_err(|e| format!("its header is not JSON ({e})"))?;
    let serde_json::Value::Object(header) = header else {
        return Err("its header is not a JSON object".to_string());
    };
    let mut tensors = BTreeMap::new();
    for (name, info) in header {
        if name == "__metadata__" {
            continue;
        }
        let dtype = info.get("dtype").and_then(|d| d.as_str());
        if dtype != Some("F32") {
            return Err(format!(
                "tensor {name:?} has dtype {}; a checkpoint's weights are F32",
                info.get("dtype")
                    .map_or("none".to_string(), |d| d.to_string())
            ));
        }
        let numbers = |key: &str| -> Option<Vec<usize>> {
            info.get(key)?
                .as_array()?
                .iter()
                .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()))
                .collect()
        };
        let (Some(shape), Some(offsets)) = (numbers("shape"), numbers("data_offsets")) else {
            return Err(format!(
                "tensor {name:?} has a malformed shape or data_offsets"
            ));
        };
        let [begin, end] = offsets[..] else {
            return Err(format!(
                "tensor {name:?} has a malformed shape or data_offsets"
            ));
        };
        let want = elements(&shape).and_then(|n| n.checked_mul(4));
        if begin > end || end > body.len() || Some(end - begin) != want {
            return Err(format!(
                "tensor {name:?} of shape {shape:?} does not fit its offsets [{begin}, {end}) in \
                 {} bytes of data",
                body.len()
            ));
        }
        let data = body[begin..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        tensors.insert(name, Tensor32 { shape, data });
    }
    Ok(tensors)
}

/// The number of values of a tensor of `shape`, unless it overflows.
fn elements(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> BTreeMap<String, Tensor32> {
        let mut t = BTreeMap::new();
        t.insert(
            "a".to_string(),
            Tensor32 {
                shape: vec![2, 3],
                data: vec![1.0, -2.5, 3.0, f32::MIN_POSITIVE, 0.0, 7.0],
            },
        );
        t.insert(
            "b.scalar".to_string(),
            Tensor32 {
                shape: vec![],
                data: vec![4.0],
            },
        );
        t
    }

    #[test]
    fn tensors_round_trip() {
        let bytes = encode(&sample()).unwrap();
        assert_eq!(decode(&bytes).unwrap(), sample());
        let header = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        assert_eq!(header % 8, 0);
    }

    #[test]
    fn every_cut_and_flipped_byte_is_an_error_or_a_tensor_never_a_panic() {
        let bytes = encode(&sample()).unwrap();
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0xa5;
            let _ = decode(&damaged);
        }
    }

    #[test]
    fn other_dtypes_and_bad_offsets_are_named() {
        let bytes = encode(&sample()).unwrap();
        let text = String::from_utf8_lossy(&bytes).replace("\"F32\"", "\"F64\"");
        let err = decode(text.as_bytes()).unwrap_err();
        assert!(err.contains("dtype \"F64\""), "{err}");
        let mut bad = sample();
        bad.get_mut("a").unwrap().data.pop();
        assert!(encode(&bad).unwrap_err().contains("shape [2, 3]"));
    }
}
