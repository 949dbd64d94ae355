#include "model/matrix_product.hpp"

#include <cblas.h>

namespace distlab::kernels {

void matrixProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float beta, float* c) {
    const auto transpose = [](Op op) { return op == Op::Transpose ? CblasTrans : CblasNoTrans; };
    const auto lda = static_cast<blasint>(opA == Op::Transpose ? m : k);
    const auto ldb = static_cast<blasint>(opB == Op::Transpose ? k : n);
    cblas_sgemm(CblasRowMajor, transpose(opA), transpose(opB), static_cast<blasint>(m), static_cast<blasint>(n),
                static_cast<blasint>(k), 1.0f, a, lda, b, ldb, beta, c, static_cast<blasint>(n));
}

}  // namespace distlab::kernels
