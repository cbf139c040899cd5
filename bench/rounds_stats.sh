# Statistics of interleaved benchmark rounds, sourced by the bench scripts. Both read one
# number per line on standard input.

median() { sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# A distribution-free confidence interval of at least 95 % for the median of per-round
# ratios: the order statistics x(k) and x(n+1-k), k the largest rank with
# P(Binomial(n, 1/2) < k) <= 2.5 %. Whether it holds 1 is whether a difference was measured.
# Prints "lo-hi", or "-" with fewer than 6 rounds (no such k).
median_interval() {
  sort -g | awk '{v[NR]=$1} END{
    n = NR; p = 0.5 ^ n; cdf = p; k = 0
    for (i = 1; i <= n && cdf <= 0.025; ++i) { k = i; p = p * (n - i + 1) / i; cdf += p }
    if (k < 1) print "-"; else printf "%.3f-%.3f\n", v[k], v[n + 1 - k]
  }'
}
