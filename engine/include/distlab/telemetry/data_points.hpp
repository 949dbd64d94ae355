#pragma once
// The data points the decision boundary is drawn over: a sample of the 2-D training and test
// sets, taken where the data lives (the app's session thread, or a cluster's coordinator task,
// which streams it to the app once) and drawn by the app's boundary view.
#include <cstddef>
#include <vector>

#include "distlab/data/dataset.hpp"

namespace distlab {

struct DataPoints {
    static constexpr std::size_t kMaxPoints = 2000;  ///< of each set
    std::vector<float> train, test;                  ///< x, y of each point, one after the other
    std::vector<float> trainValue, testValue;        ///< its class id, or its regression target
    bool classification = true;
    bool empty() const { return train.empty() && test.empty(); }
};

/// Up to kMaxPoints of each set, evenly strided through it; empty unless the data is 2-D.
DataPoints sampleDataPoints(const DataSplit& data);

}  // namespace distlab
