// SPDX-License-Identifier: AGPL-3.0-or-later
#include "bestavailable.h"

#include <QHash>
#include <algorithm>
#include <cmath>
#include <limits>

namespace marquee {

namespace {

struct RowSeats {
    QList<const BestAvailableSeat *> seats; // sorted by number
    QList<int> runId;                       // contiguous physical run of each seat (aisles split runs)
};

double medianPitch(const QList<const BestAvailableSeat *> &seats)
{
    QList<double> gaps;
    for (qsizetype i = 1; i < seats.size(); ++i)
        gaps.append(std::hypot(seats[i]->seat.x - seats[i - 1]->seat.x, seats[i]->seat.y - seats[i - 1]->seat.y));
    if (gaps.isEmpty())
        return 1;
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    return std::max(gaps[gaps.size() / 2], 1e-6);
}

} // namespace

QStringList bestAvailable(const QList<BestAvailableSeat> &seats, const BestAvailableRequest &request)
{
    if (request.count <= 0)
        return {};

    QHash<QString, RowSeats> rows;
    for (const BestAvailableSeat &seat : seats)
        rows[seat.seat.row].seats.append(&seat);
    for (RowSeats &row : rows) {
        std::sort(row.seats.begin(), row.seats.end(), [](auto *a, auto *b) { return a->seat.number < b->seat.number; });
        const double pitch = medianPitch(row.seats);
        int run = 0;
        for (qsizetype i = 0; i < row.seats.size(); ++i) {
            if (i > 0) {
                const auto *a = row.seats[i - 1];
                const auto *b = row.seats[i];
                if (b->seat.number != a->seat.number + 1 || std::hypot(b->seat.x - a->seat.x, b->seat.y - a->seat.y) > 1.6 * pitch)
                    ++run;
            }
            row.runId.append(run);
        }
    }

    // Tiers in the order asked; an empty order means one pass over all tiers.
    QList<std::optional<QString>> passes;
    for (const QString &tier : request.tierOrder)
        passes.append(tier);
    if (passes.isEmpty())
        passes.append(std::nullopt);

    for (const auto &tier : passes) {
        // The target: the given point, or the centre of the tier's seats (all of them, sold or not).
        QPointF target;
        if (request.near) {
            target = *request.near;
        } else {
            double minX = std::numeric_limits<double>::max(), maxX = -minX, minY = minX, maxY = -minX;
            int n = 0;
            for (const BestAvailableSeat &candidate : seats) {
                const Seat &seat = candidate.seat;
                if (tier && seat.tier != *tier)
                    continue;
                minX = std::min(minX, seat.x), maxX = std::max(maxX, seat.x);
                minY = std::min(minY, seat.y), maxY = std::max(maxY, seat.y);
                ++n;
            }
            if (n == 0)
                continue;
            target = QPointF((minX + maxX) / 2, (minY + maxY) / 2);
        }

        double bestScore = std::numeric_limits<double>::max();
        QStringList best;
        for (const RowSeats &row : std::as_const(rows)) {
            const auto &list = row.seats;
            auto usable = [&](qsizetype i) {
                const BestAvailableSeat *s = list[i];
                return s->available && !request.exclude.contains(s->seat.seatId);
            };
            for (qsizetype start = 0; start + request.count <= list.size(); ++start) {
                const qsizetype end = start + request.count; // exclusive
                bool ok = row.runId[start] == row.runId[end - 1];
                bool hasWheelchair = false;
                double sx = 0, sy = 0;
                for (qsizetype i = start; ok && i < end; ++i) {
                    const Seat &s = list[i]->seat;
                    const bool wheelchair = s.isWheelchair();
                    ok = usable(i) && (!tier || s.tier == *tier) && (request.wheelchair || !wheelchair);
                    hasWheelchair = hasWheelchair || wheelchair;
                    sx += s.x, sy += s.y;
                }
                if (!ok || (request.wheelchair && !hasWheelchair))
                    continue;
                // Orphans: count the free seats left on each side inside the same physical run.
                auto freeRun = [&](qsizetype from, int step) {
                    int n = 0;
                    for (qsizetype i = from; i >= 0 && i < list.size() && row.runId[i] == row.runId[start] && usable(i); i += step)
                        ++n;
                    return n;
                };
                if (freeRun(start - 1, -1) == 1 || freeRun(end, +1) == 1)
                    continue;
                const double cx = sx / request.count, cy = sy / request.count;
                // Sideways distance matters more than depth: a centred seat a row further back beats an edge seat.
                const double score = std::abs(cx - target.x()) * 1.0 + std::abs(cy - target.y()) * 0.6;
                if (score < bestScore) {
                    bestScore = score;
                    best.clear();
                    for (qsizetype i = start; i < end; ++i)
                        best.append(list[i]->seat.seatId);
                }
            }
        }
        if (!best.isEmpty())
            return best;
    }
    return {};
}

} // namespace marquee
