//! A minimal H.264 (Baseline profile, CAVLC) encoder for flat grey pictures.
//!
//! Every picture is the same mid-grey frame, so the bitstream is tiny and can be written
//! directly: an IDR picture codes each macroblock as `I_16x16` with DC prediction and no
//! residual (8 bits per macroblock), and a P picture is a single run of skipped macroblocks.
//! Any even width and height work; sizes that are not multiples of 16 are cropped in the SPS.

use super::bits::BitWriter;

/// NAL unit types used here.
const NAL_SLICE: u8 = 1;
const NAL_IDR: u8 = 5;
const NAL_SPS: u8 = 7;
const NAL_PPS: u8 = 8;

/// `log2_max_frame_num`: frame numbers are 16-bit.
const FRAME_NUM_BITS: u8 = 16;

/// The parameter sets and picture geometry of one stream.
#[derive(Debug, Clone)]
pub(crate) struct H264 {
    /// The SPS NAL unit (header byte included, emulation prevention applied).
    pub(crate) sps: Vec<u8>,
    /// The PPS NAL unit.
    pub(crate) pps: Vec<u8>,
    /// `profile_idc`.
    pub(crate) profile: u8,
    /// `constraint_set` flags byte.
    pub(crate) compat: u8,
    /// `level_idc`.
    pub(crate) level: u8,
    mbs: u32,
}

/// A NAL unit: header byte, then the RBSP with emulation-prevention bytes inserted.
fn nal(ref_idc: u8, kind: u8, rbsp: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rbsp.len() + rbsp.len() / 64 + 2);
    out.push((ref_idc << 5) | kind);
    let mut zeros = 0;
    for &b in rbsp {
        if zeros >= 2 && b <= 3 {
            out.push(3);
            zeros = 0;
        }
        out.push(b);
        zeros = if b == 0 { zeros + 1 } else { 0 };
    }
    out
}

impl H264 {
    /// Parameter sets for `width` × `height` (both even and non-zero).
    pub(crate) fn new(width: u32, height: u32) -> Self {
        let (wmb, hmb) = (width.div_ceil(16).max(1), height.div_ceil(16).max(1));
        let mbs = wmb * hmb;
        let level = match mbs {
            0..=3600 => 31,
            3601..=8192 => 40,
            8193..=22080 => 51,
            _ => 52,
        };
        let (profile, compat) = (66u8, 0xC0u8);
        let mut w = BitWriter::default();
        w.bits(u64::from(profile), 8);
        w.bits(u64::from(compat), 8);
        w.bits(level, 8);
        w.ue(0); // seq_parameter_set_id
        w.ue(u32::from(FRAME_NUM_BITS) - 4); // log2_max_frame_num_minus4
        w.ue(2); // pic_order_cnt_type: output order = decoding order
        w.ue(1); // max_num_ref_frames
        w.bit(false); // gaps_in_frame_num_value_allowed_flag
        w.ue(wmb - 1);
        w.ue(hmb - 1);
        w.bit(true); // frame_mbs_only_flag
        w.bit(true); // direct_8x8_inference_flag
        let (crop_r, crop_b) = ((wmb * 16 - width) / 2, (hmb * 16 - height) / 2);
        w.bit(crop_r > 0 || crop_b > 0);
        if crop_r > 0 || crop_b > 0 {
            w.ue(0);
            w.ue(crop_r);
            w.ue(0);
            w.ue(crop_b);
        }
        w.bit(false); // vui_parameters_present_flag
        w.trailing();
        let sps = nal(3, NAL_SPS, &w.finish());

        let mut w = BitWriter::default();
        w.ue(0); // pic_parameter_set_id
        w.ue(0); // seq_parameter_set_id
        w.bit(false); // entropy_coding_mode_flag: CAVLC
        w.bit(false); // bottom_field_pic_order_in_frame_present_flag
        w.ue(0); // num_slice_groups_minus1
        w.ue(0); // num_ref_idx_l0_default_active_minus1
        w.ue(0); // num_ref_idx_l1_default_active_minus1
        w.bit(false); // weighted_pred_flag
        w.bits(0, 2); // weighted_bipred_idc
        w.se(0); // pic_init_qp_minus26
        w.se(0); // pic_init_qs_minus26
        w.se(0); // chroma_qp_index_offset
        w.bit(true); // deblocking_filter_control_present_flag
        w.bit(false); // constrained_intra_pred_flag
        w.bit(false); // redundant_pic_cnt_present_flag
        w.trailing();
        let pps = nal(3, NAL_PPS, &w.finish());
        Self {
            sps,
            pps,
            profile,
            compat,
            level: level as u8,
            mbs,
        }
    }

    /// An IDR picture (frame_num 0); consecutive IDRs need different `idr_pic_id`s.
    pub(crate) fn idr(&self, idr_pic_id: u32) -> Vec<u8> {
        let mut w = BitWriter::default();
        w.ue(0); // first_mb_in_slice
        w.ue(7); // slice_type: I (all slices)
        w.ue(0); // pic_parameter_set_id
        w.bits(0, FRAME_NUM_BITS); // frame_num
        w.ue(idr_pic_id);
        w.bit(false); // no_output_of_prior_pics_flag
        w.bit(false); // long_term_reference_flag
        w.se(0); // slice_qp_delta
        w.ue(1); // disable_deblocking_filter_idc: off
        for _ in 0..self.mbs {
            w.ue(3); // mb_type I_16x16_2_0_0: DC prediction, no coded residual
            w.ue(0); // intra_chroma_pred_mode: DC
            w.se(0); // mb_qp_delta
            w.bit(true); // Intra16x16DCLevel coeff_token: TotalCoeff 0 (nC 0)
        }
        w.trailing();
        nal(3, NAL_IDR, &w.finish())
    }

    /// A P picture that skips every macroblock (a copy of the previous picture).
    pub(crate) fn p_skip(&self, frame_num: u32) -> Vec<u8> {
        let mut w = BitWriter::default();
        w.ue(0); // first_mb_in_slice
        w.ue(5); // slice_type: P (all slices)
        w.ue(0); // pic_parameter_set_id
        w.bits(u64::from(frame_num), FRAME_NUM_BITS);
        w.bit(false); // num_ref_idx_active_override_flag
        w.bit(false); // ref_pic_list_modification_flag_l0
        w.bit(false); // adaptive_ref_pic_marking_mode_flag
        w.se(0); // slice_qp_delta
        w.ue(1); // disable_deblocking_filter_idc
        w.ue(self.mbs); // mb_skip_run: the whole picture
        w.trailing();
        nal(2, NAL_SLICE, &w.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulation_prevention() {
        assert_eq!(
            nal(0, 1, &[0, 0, 1, 0, 0, 0]),
            vec![1, 0, 0, 3, 1, 0, 0, 3, 0]
        );
    }

    #[test]
    fn idr_is_one_byte_per_macroblock() {
        let h = H264::new(64, 32);
        // header byte + slice header (a few bytes) + 8 macroblocks of one byte + trailing.
        let idr = h.idr(0);
        assert!(idr.len() < 20, "{}", idr.len());
        assert_eq!(idr[0] & 0x1F, NAL_IDR);
        assert_eq!(h.sps[0] & 0x1F, NAL_SPS);
    }
}
