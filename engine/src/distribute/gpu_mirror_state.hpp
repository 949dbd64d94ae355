#pragma once
// Which copy of a GPU run's variables is the newest: the GPUs' after a step, the host mirror's after
// a caller wrote into it (and said so with broadcastParameters or restoreProgress), or both alike.
// GpuTrainer copies only when a side that is behind is about to be used: the host mirror is
// downloaded when something on the host reads it (a snapshot, a checkpoint or weights file,
// evaluation, prediction), not after every step, and uploaded before the next step when it was
// written. Host-only and header-only, so its rules are tested without a GPU (test_gpu_plan).
namespace distlab {

class GpuMirrorState {
public:
    enum class Newest { Both, Device, Host };

    /// Before anything on the host reads the mirror (or takes a reference it may write through):
    /// `download` when the GPUs are ahead.
    template <class Download>
    void beforeHostRead(Download&& download) {
        if (m_newest == Newest::Device) {
            download();
            m_newest = Newest::Both;
        }
    }
    /// A caller has written into the mirror (it read it first, through beforeHostRead, so the parts
    /// it did not write are current too): the GPUs are behind until the next step uploads.
    void hostWritten() { m_newest = Newest::Host; }
    /// Before a step: `upload` when the host is ahead.
    template <class Upload>
    void beforeStep(Upload&& upload) {
        if (m_newest == Newest::Host) {
            upload();
            m_newest = Newest::Both;
        }
    }
    /// A step ran on the GPUs: the mirror is behind.
    void stepped() { m_newest = Newest::Device; }
    Newest newest() const { return m_newest; }

private:
    Newest m_newest = Newest::Host;  ///< a new trainer's initial variables are on the host only
};

}  // namespace distlab
