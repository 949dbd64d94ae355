#pragma once
// Comparing two weight files (safetensors) as the end-to-end tests do.
#include <QString>
#include <QtGlobal>

#include <algorithm>
#include <cmath>

#include "distlab/formats/safetensors.hpp"

/// The largest relative error ‖a − b‖ / ‖b‖ over the parameters of two weight files (`expected` is
/// b), after checking both hold the same F32 tensors (infinity when they do not); a file that
/// cannot be read ends the test.
inline double weightRelativeError(const QString& actualPath, const QString& expectedPath) {
    const auto actual = distlab::readSafeTensors(actualPath.toStdString());
    const auto expected = distlab::readSafeTensors(expectedPath.toStdString());
    if (!actual) qFatal("%s", actual.error().message.c_str());
    if (!expected) qFatal("%s", expected.error().message.c_str());
    if (actual->tensors.size() != expected->tensors.size()) return INFINITY;
    double worst = 0.0;
    for (const auto& [name, tensor] : expected->tensors) {
        const auto found = actual->tensors.find(name);
        if (found == actual->tensors.end() || found->second.dtype != distlab::SafeDType::F32 || found->second.shape != tensor.shape)
            return INFINITY;
        const auto* a = reinterpret_cast<const float*>(found->second.bytes.data());
        const auto* b = reinterpret_cast<const float*>(tensor.bytes.data());
        double difference = 0.0, norm = 0.0;
        for (std::size_t i = 0; i < tensor.bytes.size() / sizeof(float); ++i) {
            difference += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
            norm += double(b[i]) * b[i];
        }
        worst = std::max(worst, std::sqrt(difference) / std::max(std::sqrt(norm), 1e-30));
    }
    return worst;
}
