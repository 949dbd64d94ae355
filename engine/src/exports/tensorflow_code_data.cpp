// The TensorFlow code's data: where the training set comes from (the files a data source names, Keras'
// copy of Fashion-MNIST, or the samples DistLab generated, read from the file its PyTorch export
// writes) and the tf.data pipeline that batches it as DistLab's sampler does (docs/semantics.md §9).
#include <filesystem>

#include "distlab/exports/pytorch_export.hpp"
#include "exports/python_text.hpp"
#include "exports/tensorflow_code_parts.hpp"

namespace distlab::tensorflow_code {
namespace {

/// A data path as DistLab opens it: relative paths resolve against the config's folder.
std::string resolved(const RunConfig& config, const std::string& path) {
    if (path.empty() || config.baseDirectory.empty() || std::filesystem::path(path).is_absolute()) return path;
    return (std::filesystem::path(config.baseDirectory) / path).lexically_normal().string();
}

/// How to write the files of DistLab's PyTorch export that this code reads (the data file, the
/// initial weights): the same files, so both exports start from DistLab's own samples and weights.
std::string exportCommand(const Plan& plan) {
    std::string command = "distlab-cli export-pytorch CONFIG " + plan.stem + ".py --steps 0";
    // The PyTorch export refuses parameter servers; the data and the initial weights depend only on
    // the data keys, the model and the seed (docs/semantics.md §7, §9), so a one-device copy has them.
    if (plan.runtime == Plan::Runtime::ParameterServer) command += " --set 'strategy={\"type\":\"one_device\"}'";
    return command;
}

std::string filesPart(const Plan& plan, bool dataFromDistLab) {
    const PyTorchExportFiles files = pyTorchExportFiles(plan.stem + ".py");
    std::string out;
    out += comment(std::string(dataFromDistLab ? "DistLab's own training samples and initial weights"
                                               : "DistLab's initial weights (optional: without them Keras draws its own)") +
                   " come from the files `" + exportCommand(plan) + "` writes; this code reads them from its own folder.");
    out += "HERE = os.path.dirname(os.path.abspath(__file__))\n";
    if (dataFromDistLab) out += "DATA_FILE = os.path.join(HERE, " + pythonString(files.data) + ")\n";
    out += "INIT_FILE = os.path.join(HERE, " + pythonString(files.weights) + ")\n\n";
    out += kReadSafeTensorsPython;
    return out;
}

std::string labelsExpression(const Plan& plan, const std::string& values) {
    return plan.classification ? values + ".astype(np.int32)" : values + ".astype(np.float32).reshape(len(" + values + "), -1)";
}

std::string distLabSamples(const Plan& plan) {
    const DataConfig& data = plan.config.data;
    std::string what = data.source == DataSource::Synthetic
                           ? std::string("the synthetic ") + configName(data.kind) + " set (" + std::to_string(data.samples) +
                                 " samples, noise " + pythonFloat(data.noise) + ", train fraction " + pythonFloat(data.trainFraction) + ")"
                           : "random data (" + std::to_string(data.samples) + " samples of " + std::to_string(data.features) + " features)";
    std::string out = "\n\n" + comment("DistLab generates " + what +
                                       " from the run's seed with its own random numbers, which TensorFlow cannot draw again.");
    out +=
        "def load_training_set():\n"
        "    \"\"\"DistLab's exact training samples, from DATA_FILE.\"\"\"\n";
    out +=
        "    if not os.path.exists(DATA_FILE):\n"
        "        sys.exit(DATA_FILE + \": not found; write it with: \" + " +
        pythonString(exportCommand(plan)) +
        ")\n"
        "    tensors = read_safetensors(DATA_FILE)\n";
    out += "    return tensors[\"x\"].astype(np.float32), " +
           labelsExpression(plan, std::string("tensors[\"") + (plan.classification ? "labels" : "targets") + "\"]") + "\n";
    return out;
}

std::string fashionMnist(const Plan& plan) {
    return "\n\ndef load_training_set():\n"
           "    \"\"\"Fashion-MNIST's 60,000 training images as 784 features in [0, 1] (pixel / 255) and their\n"
           "    labels. DistLab reads the same files from Debian's dataset-fashion-mnist; Keras downloads them.\"\"\"\n"
           "    (x, y), _ = tf.keras.datasets.fashion_mnist.load_data()\n"
           "    return (x.reshape(len(x), -1) / 255.0).astype(np.float32), " +
           labelsExpression(plan, "y") + "\n";
}

std::string csvFile(Plan& plan) {
    const DataConfig& data = plan.config.data;
    return "\nCSV_PATH = " + pythonString(resolved(plan.config, data.path)) + "  # data.path\n" +
           "LABEL_COLUMN = " + std::to_string(data.labelColumn) + "  # data.label_column: negative counts from the end\n" +
           "\n\ndef load_training_set():\n"
           "    \"\"\"CSV_PATH as DistLab reads it (docs/interfaces.md §11.1): comma-separated numbers, the first\n"
           "    line a header when a field is not a number, LABEL_COLUMN the label, the other columns the features.\"\"\"\n"
           "    with open(CSV_PATH, encoding=\"utf-8-sig\") as f:\n"
           "        rows = [line.split(\",\") for line in f.read().splitlines() if line.strip()]\n"
           "    try:\n"
           "        [float(field) for field in rows[0]]\n"
           "    except ValueError:\n"
           "        rows = rows[1:]  # a header\n"
           "    table = np.array(rows, dtype=np.float64)\n"
           "    label = LABEL_COLUMN % table.shape[1]\n"
           "    return np.delete(table, label, axis=1).astype(np.float32), " +
           labelsExpression(plan, "table[:, label]") + "\n";
}

std::string idxFiles(Plan& plan) {
    const DataConfig& data = plan.config.data;
    plan.imports.insert("gzip");
    return "\nIMAGES_PATH = " + pythonString(resolved(plan.config, data.images)) + "  # data.images\n" +
           "LABELS_PATH = " + pythonString(resolved(plan.config, data.labels)) + "  # data.labels\n" +
           "\n\ndef read_idx(path):\n"
           "    \"\"\"An IDX file, gzipped or not, as an array of unsigned bytes (docs/interfaces.md §11.2).\"\"\"\n"
           "    with open(path, \"rb\") as f:\n"
           "        blob = f.read()\n"
           "    if blob[:2] == b\"\\x1f\\x8b\":\n"
           "        blob = gzip.decompress(blob)\n"
           "    dimensions = blob[3]\n"
           "    shape = struct.unpack(\">\" + \"I\" * dimensions, blob[4:4 + 4 * dimensions])\n"
           "    return np.frombuffer(blob, dtype=np.uint8, offset=4 + 4 * dimensions).reshape(shape)\n"
           "\n\ndef load_training_set():\n"
           "    \"\"\"The images as features in [0, 1] (pixel / 255) and their labels, as DistLab reads them.\"\"\"\n"
           "    images = read_idx(IMAGES_PATH)\n"
           "    return (images.reshape(len(images), -1) / 255.0).astype(np.float32), " +
           labelsExpression(plan, "read_idx(LABELS_PATH)") + "\n";
}

/// The tf.data pipeline: DistLab's sampler draws global batches of G consecutive samples of each
/// epoch's order, drops an epoch's remainder and reshuffles per epoch (docs/semantics.md §9).
std::string pipeline(const Plan& plan) {
    const bool ps = plan.runtime == Plan::Runtime::ParameterServer;
    std::string out = std::string("\n\ndef make_dataset(x, y, batch_size") + (ps ? ", input_context" : "") + "):\n";
    out +=
        "    \"\"\"Endless batches of `batch_size` consecutive samples of each epoch's order; an epoch drops the\n"
        "    samples left when fewer than a batch remain (docs/semantics.md §9).\"\"\"\n"
        "    dataset = tf.data.Dataset.from_tensor_slices((x, y))\n";
    if (ps)
        out +=
            "    # Each worker its own part of the data: DistLab's coordinator hands every worker the next global\n"
            "    # batch; TensorFlow's per-worker datasets cannot share one stream, so they split the samples.\n"
            "    dataset = dataset.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)\n";
    if (plan.config.data.shuffle)
        out +=
            "    # Reshuffled every epoch from the seed (DistLab's permutations come from its own generator).\n"
            "    dataset = dataset.shuffle(len(x), seed=SEED, reshuffle_each_iteration=True)\n";
    else
        out += "    # data.shuffle is false: every epoch in the data set's order.\n";
    out += "    return dataset.batch(batch_size, drop_remainder=True).repeat()\n";
    return out;
}

}  // namespace

std::string dataSection(Plan& plan) {
    plan.imports.insert("json");
    plan.imports.insert("os");
    plan.imports.insert("struct");
    const DataSource source = plan.config.data.source;
    const bool generated = source == DataSource::Synthetic || source == DataSource::Random;
    if (generated) plan.imports.insert("sys");
    std::string out = sectionTitle("the data (docs/semantics.md §9)") + filesPart(plan, generated);
    switch (source) {
        case DataSource::Synthetic:
        case DataSource::Random:
            out += distLabSamples(plan);
            break;
        case DataSource::FashionMnist:
            out += fashionMnist(plan);
            break;
        case DataSource::Csv:
            out += csvFile(plan);
            break;
        case DataSource::Idx:
            out += idxFiles(plan);
            break;
    }
    if (!plan.config.data.testPath.empty() || !plan.config.data.testImages.empty())
        out += comment(
            "The test set (data.test_path, data.test_images) is only evaluated, never trained on; "
            "this code leaves it out.");
    return out + pipeline(plan);
}

}  // namespace distlab::tensorflow_code
