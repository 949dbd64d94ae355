#include "session/boundary_grid.hpp"

#include <algorithm>
#include <cmath>

namespace distlab {

void computeBoundaryGrid(Trainer& trainer, int resolution, ModelSnapshot& snapshot) {
    const Dataset& train = trainer.data().train;
    float minX = train.x[0], maxX = train.x[0], minY = train.x[1], maxY = train.x[1];
    for (std::int64_t i = 0; i < train.count; ++i) {
        minX = std::min(minX, train.x[static_cast<std::size_t>(2 * i)]);
        maxX = std::max(maxX, train.x[static_cast<std::size_t>(2 * i)]);
        minY = std::min(minY, train.x[static_cast<std::size_t>(2 * i + 1)]);
        maxY = std::max(maxY, train.x[static_cast<std::size_t>(2 * i + 1)]);
    }
    const float marginX = 0.05f * std::max(maxX - minX, 1e-3f), marginY = 0.05f * std::max(maxY - minY, 1e-3f);
    snapshot.gridMinX = minX - marginX;
    snapshot.gridMaxX = maxX + marginX;
    snapshot.gridMinY = minY - marginY;
    snapshot.gridMaxY = maxY + marginY;
    snapshot.gridResolution = resolution;

    Tensor input;
    input.resize2d(static_cast<std::int64_t>(resolution) * resolution, 2);
    float* points = input.data();
    for (int row = 0; row < resolution; ++row)
        for (int col = 0; col < resolution; ++col) {
            const std::int64_t i = static_cast<std::int64_t>(row) * resolution + col;
            points[2 * i] = static_cast<float>(snapshot.gridMinX + (col + 0.5) * (snapshot.gridMaxX - snapshot.gridMinX) / resolution);
            points[2 * i + 1] = static_cast<float>(snapshot.gridMinY + (row + 0.5) * (snapshot.gridMaxY - snapshot.gridMinY) / resolution);
        }
    const Tensor& output = trainer.predict(input);
    const std::int64_t width = output.cols();
    const float* outputs = output.data();
    snapshot.grid.resize(static_cast<std::size_t>(resolution) * static_cast<std::size_t>(resolution));
    for (std::size_t i = 0; i < snapshot.grid.size(); ++i) {
        const float* row = outputs + static_cast<std::int64_t>(i) * width;
        if (!train.isClassification()) {
            snapshot.grid[i] = row[0];
        } else if (width == 2) {
            snapshot.grid[i] = 1.0f / (1.0f + std::exp(row[0] - row[1]));  // softmax's P(class 1)
        } else {
            const auto best = std::max_element(row, row + width) - row;
            snapshot.grid[i] = static_cast<float>(best) / static_cast<float>(width - 1);
        }
    }
}

}  // namespace distlab
