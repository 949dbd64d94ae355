// The layer types a config may name (config/layer_types.hpp) and the model's builders for them
// (model/layer_registry.hpp): every named type builds, each with the width its config declares.
#include <QtTest>

#include <set>
#include <string>

#include "distlab/config/layer_types.hpp"
#include "distlab/model/layer.hpp"
#include "distlab/model/layer_registry.hpp"

using namespace distlab;

namespace {

// A config of `type` as a user would write it for an input of 3 values: dense takes units, residual
// an inner dense layer as wide as its input.
LayerConfig exampleOf(const LayerType& type) {
    LayerConfig config;
    config.type = std::string(type.name);
    if (type.takesUnits) config.units = 7;
    if (type.takesInnerLayers) config.layers = {LayerConfig{.type = "dense", .units = 3, .activation = Activation::Relu}};
    return config;
}

}  // namespace

class TestLayerTypes : public QObject {
    Q_OBJECT
private slots:
    void everyTypeHasABuilder() {
        QVERIFY(!layerTypes().empty());
        for (const LayerType& type : layerTypes()) {
            const LayerConfig config = exampleOf(type);
            const auto layer = makeLayer(config, "l", 3, AggregationMethod::AddN);
            QVERIFY2(layer != nullptr, std::string(type.name).c_str());
            // A type with units has that width; one without keeps its input's width (3).
            QCOMPARE(layer->outputFeatures(3), type.takesUnits ? std::int64_t{7} : std::int64_t{3});
        }
    }

    void namesAreListedOnceInOrder() {
        std::set<std::string> seen;
        std::string expected;
        for (const LayerType& type : layerTypes()) {
            QVERIFY(seen.insert(std::string(type.name)).second);
            expected += (expected.empty() ? "" : ", ") + std::string(type.name);
            QCOMPARE(findLayerType(type.name), &type);
        }
        QCOMPARE(layerTypeNames(), expected);
        QVERIFY(findLayerType("conv2d") == nullptr);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layerTypeOf(LayerConfig{.type = "conv2d"}));
    }

    void declaredWidthIsTheLastUnits() {
        // dense 16 → residual → dense 4 → residual: the last layer that sets a width is dense 4.
        const LayerConfig residual{.type = "residual", .layers = {LayerConfig{.type = "dense", .units = 4}}};
        QCOMPARE(
            declaredOutputWidth({LayerConfig{.type = "dense", .units = 16}, residual, LayerConfig{.type = "dense", .units = 4}, residual}),
            std::int64_t{4});
        QCOMPARE(declaredOutputWidth({residual}), std::int64_t{0});
        QCOMPARE(declaredOutputWidth({}), std::int64_t{0});
    }
};

QTEST_APPLESS_MAIN(TestLayerTypes)
#include "test_layer_types.moc"
