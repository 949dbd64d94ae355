#pragma once
// One value axis of a chart: its range, a round tick step (1-2-5) and the labels of the ticks.
// Plain data and arithmetic, no Qt Charts. GUI thread.
#include <QString>
#include <QStringList>

#include <vector>

namespace distlab::ui {

struct ChartAxis {
    double low = 0.0;
    double high = 1.0;
    double step = 0.25;

    /// Rounds [low, high] out to a 1-2-5 step so the labels stay short and still; returns the step.
    static double niceRange(double& low, double& high);
    /// Sets the range and the tick step.
    void set(double rangeLow, double rangeHigh, double tickStep);
    /// Tick values: multiples of step inside [low, high] (at most 64).
    std::vector<double> ticks() const;
    /// A tick's label: whole numbers for steps >= 1 (in k, M or G from 100,000 on), else as many
    /// significant digits as neighbouring ticks need to differ (at least 3).
    QString label(double value) const;
    /// Maps value to [0, 1] over the range (outside values map outside).
    double fraction(double value) const { return high > low ? (value - low) / (high - low) : 0.0; }
};

}  // namespace distlab::ui
