// SPDX-License-Identifier: AGPL-3.0-or-later
#include "waitingroom/joinbatcher.h"

namespace marquee {

JoinBatcher::JoinBatcher(store::WaitingRoomRepository &repository)
    : m_repository(repository)
    , m_queue(QStringLiteral("join-batch"), kThreads, kMaxBatch, true, [this](qint64 showId, std::vector<Pending> &batch) { insert(showId, batch); },
              [&repository] { repository.database().closeThreadConnection(); })
{
}

qint64 JoinBatcher::join(qint64 showId, const QString &owner)
{
    std::promise<qint64> entryId;
    std::future<qint64> answer = entryId.get_future();
    m_queue.push(showId, Pending{owner, std::move(entryId)});
    return answer.get();
}

void JoinBatcher::insert(qint64 showId, std::vector<Pending> &batch)
{
    QStringList owners;
    owners.reserve(qsizetype(batch.size()));
    for (const Pending &member : batch)
        owners.push_back(member.owner);
    const std::optional<std::vector<qint64>> entryIds = m_repository.join(showId, owners);
    for (size_t i = 0; i < batch.size(); ++i)
        batch[i].entryId.set_value(!entryIds ? -1 : entryIds->empty() ? 0 : (*entryIds)[i]);
}

} // namespace marquee
