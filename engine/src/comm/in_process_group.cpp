#include "distlab/comm/in_process_group.hpp"

#include <algorithm>

#include "comm/in_process_communicator.hpp"

namespace distlab {

InProcessGroup::InProcessGroup(int size, CrossDeviceOps algorithm)
    : m_size(std::max(size, 1)),
      m_algorithm(algorithm),
      m_barrier(m_size),
      m_slots(std::make_unique<Slot[]>(static_cast<std::size_t>(m_size))),
      m_mailboxes(std::make_unique<Mailbox[]>(static_cast<std::size_t>(m_size) * static_cast<std::size_t>(m_size))),
      m_progress(std::make_unique<Progress[]>(static_cast<std::size_t>(m_size))),
      m_companions(std::make_unique<CompanionValues[]>(static_cast<std::size_t>(m_size))) {
    for (int rank = 0; rank < m_size; ++rank) m_communicators.push_back(std::make_unique<comm_detail::InProcessCommunicator>(*this, rank));
}

InProcessGroup::~InProcessGroup() = default;

void InProcessGroup::abort() {
    m_aborted.store(true, std::memory_order_release);
    m_barrier.abort();
    for (int rank = 0; rank < m_size; ++rank) wakeForAbort(progress(rank));
    for (int pair = 0; pair < m_size * m_size; ++pair) {
        wakeForAbort(m_mailboxes[static_cast<std::size_t>(pair)].posted);
        wakeForAbort(m_mailboxes[static_cast<std::size_t>(pair)].taken);
    }
}

}  // namespace distlab
