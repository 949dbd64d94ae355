#include "charts/chart_axis.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace distlab::ui {

double ChartAxis::niceRange(double& low, double& high) {
    if (!std::isfinite(low) || !std::isfinite(high)) {
        low = 0.0;
        high = 1.0;
        return 0.25;
    }
    if (high - low < 1e-12) {
        const double pad = std::max(std::abs(low) * 0.05, 1e-6);
        low -= pad;
        high += pad;
    }
    const double rough = (high - low) / 5.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    double step = magnitude;
    for (double factor : {1.0, 2.0, 5.0, 10.0}) {
        step = factor * magnitude;
        if (step >= rough) break;
    }
    low = std::floor(low / step) * step;
    high = std::ceil(high / step) * step;
    return step;
}

void ChartAxis::set(double rangeLow, double rangeHigh, double tickStep) {
    low = rangeLow;
    high = rangeHigh;
    step = tickStep > 0.0 && std::isfinite(tickStep) ? tickStep : (rangeHigh - rangeLow) / 4.0;
}

std::vector<double> ChartAxis::ticks() const {
    std::vector<double> values;
    if (!(high > low) || !(step > 0.0)) return values;
    const double first = std::ceil(low / step - 1e-9) * step;
    for (int i = 0; i < 64; ++i) {
        const double value = first + step * i;
        if (value > high + step * 1e-9) break;
        values.push_back(std::abs(value) < step * 1e-9 ? 0.0 : value);
    }
    return values;
}

QString ChartAxis::label(double value) const {
    const double largest = std::max(std::abs(low), std::abs(high));
    if (step >= 1.0 && largest < 1e5) return QString::asprintf("%.0f", value);
    if (step >= 1.0 && largest < 1e15) {
        // Large whole numbers in thousands, millions or billions: "2.5M", not "2500000".
        const auto [scale, suffix] = largest >= 1e9 ? std::pair{1e9, 'G'} : largest >= 1e6 ? std::pair{1e6, 'M'} : std::pair{1e3, 'k'};
        const int wholeDigits = static_cast<int>(std::floor(std::log10(largest / scale))) + 1;  // "150k": 3
        const int digits = std::clamp(std::max(wholeDigits, static_cast<int>(std::ceil(std::log10(largest / step) - 1e-9)) + 1), 2, 15);
        return value == 0.0 ? QStringLiteral("0") : QString::asprintf("%.*g%c", digits, value / scale, suffix);
    }
    // Enough significant digits that neighbouring ticks read differently (a parameter drifting by
    // 1e-7 around -0.0191 needs seven), at least three.
    int digits = 3;
    if (step > 0.0 && largest > 0.0 && std::isfinite(largest / step))
        digits = std::clamp(static_cast<int>(std::ceil(std::log10(largest / step) - 1e-9)) + 1, 3, 15);
    return QString::asprintf("%.*g", digits, value);
}

}  // namespace distlab::ui
