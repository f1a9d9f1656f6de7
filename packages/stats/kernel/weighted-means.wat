;; The replicate loop of `weightedMeansBootstrap` (packages/stats/src/weighted-means-bootstrap.ts)
;; in WebAssembly with 128-bit SIMD: the cluster draws, the count per cluster and the weighted
;; column means of one replicate. Compiled at development time by kernel/build-kernel.mjs (wabt)
;; into src/weighted-means-kernel.generated.ts, so users need no toolchain.
;;
;; Every result is bit for bit the JavaScript path's (weighted-means-kernel.test.ts holds the two
;; together on random inputs):
;; - the draws are ClusterDrawStream's: pure-rand 8.4.2's xoroshiro128plus step on four 32-bit
;;   words and uniformInt's rejection of outputs at or above the largest multiple of the range;
;; - each column mean is summed in the JavaScript path's order: rows drawn at least once, in
;;   ascending row order, four at a time as m + (((w0 d0 + w1 d1) + w2 d2) + w3 d3), then the
;;   remaining rows one at a time as m + w d, then m / clusters. Two columns share one f64x2
;;   lane pair; lanes never mix, and f64x2 add, mul and div round each lane as the scalar
;;   operations do. No fused multiply-add (relaxed SIMD is not used).
;;
;; Memory layout (byte offsets chosen by the caller, `configure`): data (clusters x width f64,
;; row-major), counts (clusters i32), rowOffsets (clusters i32, byte offsets of the drawn rows),
;; rowWeights (clusters f64, their counts), means (width f64), drawn (clusters i32, the draws of
;; the current replicate).
(module
  (import "env" "memory" (memory 1))
  (global $clusters (mut i32) (i32.const 0))
  (global $width (mut i32) (i32.const 0))
  (global $data (mut i32) (i32.const 0))
  (global $counts (mut i32) (i32.const 0))
  (global $rowOffsets (mut i32) (i32.const 0))
  (global $rowWeights (mut i32) (i32.const 0))
  (global $means (mut i32) (i32.const 0))
  (global $drawn (mut i32) (i32.const 0))
  ;; largest accepted 32-bit output (pure-rand's maxAllowed - 1, as unsigned)
  (global $limit (mut i32) (i32.const 0))
  (global $s01 (mut i32) (i32.const 0))
  (global $s00 (mut i32) (i32.const 0))
  (global $s11 (mut i32) (i32.const 0))
  (global $s10 (mut i32) (i32.const 0))

  (func (export "configure")
    (param $clusters i32) (param $width i32) (param $data i32) (param $counts i32)
    (param $rowOffsets i32) (param $rowWeights i32) (param $means i32) (param $drawn i32)
    (param $limit i32)
    (global.set $clusters (local.get $clusters))
    (global.set $width (local.get $width))
    (global.set $data (local.get $data))
    (global.set $counts (local.get $counts))
    (global.set $rowOffsets (local.get $rowOffsets))
    (global.set $rowWeights (local.get $rowWeights))
    (global.set $means (local.get $means))
    (global.set $drawn (local.get $drawn))
    (global.set $limit (local.get $limit)))

  ;; The generator's state, as ClusterDrawStream holds it (s01, s00, s11, s10).
  (func (export "seed") (param $s01 i32) (param $s00 i32) (param $s11 i32) (param $s10 i32)
    (global.set $s01 (local.get $s01))
    (global.set $s00 (local.get $s00))
    (global.set $s11 (local.get $s11))
    (global.set $s10 (local.get $s10)))

  ;; Every cluster once: the original sample.
  (func (export "original")
    (local $at i32) (local $end i32)
    (local.set $at (global.get $counts))
    (local.set $end (i32.add (global.get $counts) (i32.shl (global.get $clusters) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (i32.store (local.get $at) (i32.const 1))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $next)))
    (call $weightedMeans))

  ;; Fills drawn[0 .. n) with the next n draws of a cluster index in [0, range), continuing the
  ;; stream; outputs above `limit` (unsigned) are redrawn. `resample` calls it with the configured
  ;; clusters and limit; the tests call it with ranges whose rejections are frequent.
  (func $draw (export "draw") (param $n i32) (param $range i32) (param $limit i32)
    (local $s01 i32) (local $s00 i32) (local $s11 i32) (local $s10 i32)
    (local $a0 i32) (local $a1 i32) (local $old00 i32) (local $delta i32)
    (local $at i32) (local $end i32)
    (local.set $s01 (global.get $s01))
    (local.set $s00 (global.get $s00))
    (local.set $s11 (global.get $s11))
    (local.set $s10 (global.get $s10))
    (local.set $at (global.get $drawn))
    (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
    (block $filled
      (loop $fill
        (br_if $filled (i32.ge_u (local.get $at) (local.get $end)))
        (loop $retry
          ;; delta = ((s00 + s10) | 0) + 2^31, as an unsigned 32-bit word
          (local.set $delta
            (i32.xor (i32.add (local.get $s00) (local.get $s10)) (i32.const 0x80000000)))
          (local.set $a0 (i32.xor (local.get $s10) (local.get $s00)))
          (local.set $a1 (i32.xor (local.get $s11) (local.get $s01)))
          (local.set $old00 (local.get $s00))
          (local.set $s00
            (i32.xor
              (i32.xor
                (i32.shl (local.get $old00) (i32.const 24))
                (i32.shr_u (local.get $s01) (i32.const 8)))
              (i32.xor (local.get $a0) (i32.shl (local.get $a0) (i32.const 16)))))
          (local.set $s01
            (i32.xor
              (i32.xor
                (i32.shl (local.get $s01) (i32.const 24))
                (i32.shr_u (local.get $old00) (i32.const 8)))
              (i32.xor
                (local.get $a1)
                (i32.or
                  (i32.shl (local.get $a1) (i32.const 16))
                  (i32.shr_u (local.get $a0) (i32.const 16))))))
          (local.set $s10
            (i32.xor (i32.shl (local.get $a1) (i32.const 5)) (i32.shr_u (local.get $a0) (i32.const 27))))
          (local.set $s11
            (i32.xor (i32.shl (local.get $a0) (i32.const 5)) (i32.shr_u (local.get $a1) (i32.const 27))))
          (br_if $retry (i32.gt_u (local.get $delta) (local.get $limit))))
        (i32.store (local.get $at) (i32.rem_u (local.get $delta) (local.get $range)))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $fill)))
    (global.set $s01 (local.get $s01))
    (global.set $s00 (local.get $s00))
    (global.set $s11 (local.get $s11))
    (global.set $s10 (local.get $s10)))

  ;; One bootstrap replicate: `clusters` draws counted into `counts`, then the weighted means.
  (func (export "resample")
    (local $at i32) (local $end i32) (local $slot i32)
    (call $draw (global.get $clusters) (global.get $clusters) (global.get $limit))
    ;; counts.fill(0), then one count per draw
    (local.set $at (global.get $counts))
    (local.set $end (i32.add (local.get $at) (i32.shl (global.get $clusters) (i32.const 2))))
    (block $zeroed
      (loop $zero
        (br_if $zeroed (i32.ge_u (local.get $at) (local.get $end)))
        (i32.store (local.get $at) (i32.const 0))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $zero)))
    (local.set $slot (global.get $drawn))
    (local.set $end (i32.add (local.get $slot) (i32.shl (global.get $clusters) (i32.const 2))))
    (block $counted
      (loop $count
        (br_if $counted (i32.ge_u (local.get $slot) (local.get $end)))
        (local.set $at
          (i32.add (global.get $counts) (i32.shl (i32.load (local.get $slot)) (i32.const 2))))
        (i32.store (local.get $at) (i32.add (i32.load (local.get $at)) (i32.const 1)))
        (local.set $slot (i32.add (local.get $slot) (i32.const 4)))
        (br $count)))
    (call $weightedMeans))

  ;; means = sum over drawn rows of count x row, / clusters, in the JavaScript path's order.
  (func $weightedMeans
    (local $used i32) (local $row i32) (local $count i32) (local $rowBytes i32)
    (local $end i32) (local $at i32) (local $pairs i32) (local $col i32)
    (local $o0 i32) (local $o1 i32) (local $o2 i32) (local $o3 i32)
    (local $w0 v128) (local $w1 v128) (local $w2 v128) (local $w3 v128)
    (local $next i32) (local $total v128) (local $means i32)
    (local.set $rowBytes (i32.shl (global.get $width) (i32.const 3)))
    (local.set $means (global.get $means))
    ;; pairs: bytes of the columns that fill whole f64x2 lanes; an odd last column goes alone
    (local.set $pairs (i32.and (local.get $rowBytes) (i32.const -16)))
    ;; the drawn rows, ascending: their byte offsets and counts
    (local.set $row (i32.const 0))
    (local.set $used (i32.const 0))
    (block $listed
      (loop $list
        (br_if $listed (i32.ge_u (local.get $row) (global.get $clusters)))
        (local.set $count
          (i32.load (i32.add (global.get $counts) (i32.shl (local.get $row) (i32.const 2)))))
        (if (local.get $count)
          (then
            (i32.store
              (i32.add (global.get $rowOffsets) (i32.shl (local.get $used) (i32.const 2)))
              (i32.add (global.get $data) (i32.mul (local.get $row) (local.get $rowBytes))))
            (f64.store
              (i32.add (global.get $rowWeights) (i32.shl (local.get $used) (i32.const 3)))
              (f64.convert_i32_u (local.get $count)))
            (local.set $used (i32.add (local.get $used) (i32.const 1)))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $list)))
    ;; means.fill(0)
    (local.set $at (local.get $means))
    (local.set $end (i32.add (local.get $means) (local.get $rowBytes)))
    (block $cleared
      (loop $clear
        (br_if $cleared (i32.ge_u (local.get $at) (local.get $end)))
        (f64.store (local.get $at) (f64.const 0))
        (local.set $at (i32.add (local.get $at) (i32.const 8)))
        (br $clear)))
    ;; four rows at a time
    (local.set $next (i32.const 0))
    (block $fours
      (loop $four
        (br_if $fours (i32.ge_u (i32.add (local.get $next) (i32.const 3)) (local.get $used)))
        (local.set $at (i32.add (global.get $rowOffsets) (i32.shl (local.get $next) (i32.const 2))))
        (local.set $o0 (i32.load (local.get $at)))
        (local.set $o1 (i32.load offset=4 (local.get $at)))
        (local.set $o2 (i32.load offset=8 (local.get $at)))
        (local.set $o3 (i32.load offset=12 (local.get $at)))
        (local.set $at (i32.add (global.get $rowWeights) (i32.shl (local.get $next) (i32.const 3))))
        (local.set $w0 (v128.load64_splat (local.get $at)))
        (local.set $w1 (v128.load64_splat offset=8 (local.get $at)))
        (local.set $w2 (v128.load64_splat offset=16 (local.get $at)))
        (local.set $w3 (v128.load64_splat offset=24 (local.get $at)))
        (local.set $col (i32.const 0))
        (block $paired
          (loop $pair
            (br_if $paired (i32.ge_u (local.get $col) (local.get $pairs)))
            (v128.store
              (i32.add (local.get $means) (local.get $col))
              (f64x2.add
                (v128.load (i32.add (local.get $means) (local.get $col)))
                (f64x2.add
                  (f64x2.add
                    (f64x2.add
                      (f64x2.mul (local.get $w0) (v128.load (i32.add (local.get $o0) (local.get $col))))
                      (f64x2.mul (local.get $w1) (v128.load (i32.add (local.get $o1) (local.get $col)))))
                    (f64x2.mul (local.get $w2) (v128.load (i32.add (local.get $o2) (local.get $col)))))
                  (f64x2.mul (local.get $w3) (v128.load (i32.add (local.get $o3) (local.get $col)))))))
            (local.set $col (i32.add (local.get $col) (i32.const 16)))
            (br $pair)))
        (if (i32.lt_u (local.get $col) (local.get $rowBytes))
          (then
            (f64.store
              (i32.add (local.get $means) (local.get $col))
              (f64.add
                (f64.load (i32.add (local.get $means) (local.get $col)))
                (f64.add
                  (f64.add
                    (f64.add
                      (f64.mul (f64x2.extract_lane 0 (local.get $w0)) (f64.load (i32.add (local.get $o0) (local.get $col))))
                      (f64.mul (f64x2.extract_lane 0 (local.get $w1)) (f64.load (i32.add (local.get $o1) (local.get $col)))))
                    (f64.mul (f64x2.extract_lane 0 (local.get $w2)) (f64.load (i32.add (local.get $o2) (local.get $col)))))
                  (f64.mul (f64x2.extract_lane 0 (local.get $w3)) (f64.load (i32.add (local.get $o3) (local.get $col)))))))))
        (local.set $next (i32.add (local.get $next) (i32.const 4)))
        (br $four)))
    ;; the remaining rows one at a time
    (block $ones
      (loop $one
        (br_if $ones (i32.ge_u (local.get $next) (local.get $used)))
        (local.set $o0
          (i32.load (i32.add (global.get $rowOffsets) (i32.shl (local.get $next) (i32.const 2)))))
        (local.set $w0
          (v128.load64_splat (i32.add (global.get $rowWeights) (i32.shl (local.get $next) (i32.const 3)))))
        (local.set $col (i32.const 0))
        (block $paired1
          (loop $pair1
            (br_if $paired1 (i32.ge_u (local.get $col) (local.get $pairs)))
            (v128.store
              (i32.add (local.get $means) (local.get $col))
              (f64x2.add
                (v128.load (i32.add (local.get $means) (local.get $col)))
                (f64x2.mul (local.get $w0) (v128.load (i32.add (local.get $o0) (local.get $col))))))
            (local.set $col (i32.add (local.get $col) (i32.const 16)))
            (br $pair1)))
        (if (i32.lt_u (local.get $col) (local.get $rowBytes))
          (then
            (f64.store
              (i32.add (local.get $means) (local.get $col))
              (f64.add
                (f64.load (i32.add (local.get $means) (local.get $col)))
                (f64.mul (f64x2.extract_lane 0 (local.get $w0)) (f64.load (i32.add (local.get $o0) (local.get $col))))))))
        (local.set $next (i32.add (local.get $next) (i32.const 1)))
        (br $one)))
    ;; means / clusters
    (local.set $total (f64x2.splat (f64.convert_i32_u (global.get $clusters))))
    (local.set $col (i32.const 0))
    (block $divided
      (loop $divide
        (br_if $divided (i32.ge_u (local.get $col) (local.get $pairs)))
        (v128.store
          (i32.add (local.get $means) (local.get $col))
          (f64x2.div (v128.load (i32.add (local.get $means) (local.get $col))) (local.get $total)))
        (local.set $col (i32.add (local.get $col) (i32.const 16)))
        (br $divide)))
    (if (i32.lt_u (local.get $col) (local.get $rowBytes))
      (then
        (f64.store
          (i32.add (local.get $means) (local.get $col))
          (f64.div
            (f64.load (i32.add (local.get $means) (local.get $col)))
            (f64x2.extract_lane 0 (local.get $total)))))))
)
