// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/bestavailable.h"
#include "core/seatstatus.h"
#include "kioskapi.h"
#include "liveseatfeed.h"

#include <QAbstractListModel>
#include <QColor>
#include <QPointer>
#include <QRectF>
#include <QSet>
#include <QTimer>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>
#include <vector>

namespace marquee::app {

/** @brief One seat as the seat map draws it: the layout's seat plus what the drawing and the selection need. */
struct MapSeat : Seat {
    int tierIndex = 0;    ///< index into SeatMapModel::tierNames() (the drawing's colour)
    qint64 priceMinor = 0;
    bool wheelchair = false; ///< isWheelchair(), kept so that a redraw of 40,000 seats searches no lists
    bool companion = false;  ///< isCompanion(), likewise
    SeatStatus status = SeatStatus::Available;
    int section = -1;    ///< index into SeatMapModel::sections(), -1 in a layout without sections
};

/** @brief A section of a large venue (a stadium block): the part of the map a customer picks before a seat. */
struct MapSection {
    QString name;   ///< the block, as the rows name it ("N01" for rows "N01-A", "N01-B", ...)
    QRectF bounds;  ///< around the seats' centres, layout units
    int seats = 0;
};

/**
 * @brief The seats of one show with live status (polled with ETag), the customer's selection and the seats to
 * highlight after a conflict. The SeatMap item draws it; a list view can show it through the roles.
 */
class SeatMapModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by the kiosk controller")
    /** @brief True while the first copy of the map is loading. */
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)
    /** @brief Why the map could not be loaded, or empty. */
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
    /** @brief [{name, price, color}] from the best (dearest) tier down. */
    Q_PROPERTY(QVariantList tiers READ tiers NOTIFY layoutReset)
    /** @brief The screen or stage label ("SCREEN", "PITCH"). */
    Q_PROPERTY(QString stageLabel READ stageLabel NOTIFY layoutReset)
    Q_PROPERTY(QStringList selectedSeats READ selectedSeats NOTIFY selectionChanged)
    /** @brief Seat ids with row and number for people: "F7, F8". */
    Q_PROPERTY(QString selectionText READ selectionText NOTIFY selectionChanged)
    Q_PROPERTY(int selectedCount READ selectedCount NOTIFY selectionChanged)
    Q_PROPERTY(qint64 selectedTotalMinor READ selectedTotalMinor NOTIFY selectionChanged)
    Q_PROPERTY(QString selectedTotalText READ selectedTotalText NOTIFY selectionChanged)
    Q_PROPERTY(QStringList highlightedSeats READ highlightedSeats NOTIFY highlightChanged)
    Q_PROPERTY(int availableCount READ availableCount NOTIFY statusesChanged)
    Q_PROPERTY(int seatCount READ seatCount NOTIFY layoutReset)
    Q_PROPERTY(QString currency READ currency NOTIFY layoutReset)
    /** @brief Row labels and where they go, in layout units: [{label, x, y}]. */
    Q_PROPERTY(QVariantList rowLabels READ rowLabels NOTIFY layoutReset)
    /** @brief The bottom edge of the screen/stage in layout units (the stage label goes just below it). */
    Q_PROPERTY(qreal stageBottom READ stageBottom NOTIFY layoutReset)
    /** @brief The sections (stadium blocks) and where they are, in layout units: [{name, x, y, width, height, seats}];
     * empty for a layout without sections (a cinema). */
    Q_PROPERTY(QVariantList sections READ sectionList NOTIFY layoutReset)
    /** @brief Statuses arrive pushed over the server's WebSocket (false: polled with ETag). */
    Q_PROPERTY(bool live READ live NOTIFY liveChanged)
public:
    enum Roles { SeatIdRole = Qt::UserRole + 1, RowRole, NumberRole, TierRole, StatusRole, PriceRole, WheelchairRole };
    Q_ENUM(Roles)

    explicit SeatMapModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    /**
     * @brief Start showing @p showId through @p api, polling every @p pollMs (0: no polling) while no live feed
     * is up.
     */
    void load(KioskApi *api, qint64 showId, int pollMs);
    /**
     * @brief Follow pushed deltas from @p server's WebSocket once the map is loaded (empty URL: poll only).
     */
    void setLiveSource(const QUrl &server, const QString &token);
    bool live() const { return m_live.live(); }
    LiveSeatFeed &liveFeed() { return m_live; }
    /** @brief Seat-map fetches sent (the first load, polls, catch-ups): pushed deltas need none. */
    int fetchCount() const { return m_fetches; }
    /**
     * @brief Layout fetches sent: once per show (seats never change), again only when the availability names
     * another layout. Polls fetch the availability alone (one status letter per seat).
     */
    int layoutFetchCount() const { return m_layoutFetches; }
    /**
     * @brief Replace every status from a snapshot (one letter a/h/b per seat, in the seat map's order); false
     * when it does not fit the layout.
     */
    bool applyStatusLetters(const QString &letters);
    /** @brief Stop polling and forget the show. */
    void clear();
    /** @brief Fetch now (If-None-Match); @p done runs after the answer was applied. */
    void refresh(std::function<void(bool ok)> done = {});
    /** @brief Parse a seat-map body (as the server sends it); public for tests and benchmarks. */
    bool applyBody(const QByteArray &body, const QByteArray &etag);
    /** @brief What applyAvailability() made of an availability body. */
    enum class AvailabilityResult { Applied, LayoutChanged, Unreadable };
    /**
     * @brief Apply an availability body (GET …/availability) to the kept layout body (GET …/layout): statuses in
     * place while layout and prices stay; the whole map rebuilt on the first one or after a price edit.
     */
    AvailabilityResult applyAvailability(const QByteArray &body, const QByteArray &etag);
    /**
     * @brief Apply status changes of single seats ([{seat_id, status}], as a pushed delta carries them) without
     * touching the others: O(changes), not O(seats). Unknown seat ids are skipped (the next full fetch fixes
     * them); returns how many seats changed.
     */
    int applyStatusChanges(const QJsonArray &changes);

    bool loading() const { return m_loading; }
    QString errorString() const { return m_errorString; }
    QVariantList tiers() const;
    QString stageLabel() const { return m_stageLabel; }
    QString currency() const { return m_currency; }
    QStringList selectedSeats() const;
    QString selectionText() const;
    int selectedCount() const { return int(m_selected.size()); }
    qint64 selectedTotalMinor() const;
    QString selectedTotalText() const;
    QStringList highlightedSeats() const { return QStringList(m_highlighted.begin(), m_highlighted.end()); }
    int availableCount() const { return m_availableCount; }
    int seatCount() const { return int(m_seats.size()); }
    qint64 showId() const { return m_showId; }
    QByteArray etag() const { return m_etag; }

    const std::vector<MapSeat> &seats() const { return m_seats; }
    QRectF layoutBounds() const { return m_bounds; }
    QRectF stageRect() const { return m_stage; }
    /** @brief The typical distance between neighbouring seats of a row, in layout units (10 when no row has two):
     *  what every view sizes a drawn seat by. */
    qreal seatPitch() const { return m_pitch; }
    bool stageIsEllipse() const { return m_stageEllipse; }
    QStringList tierNames() const { return m_tierNames; }
    QColor tierColor(int tier) const;
    qreal stageBottom() const { return m_stageEllipse ? m_stage.center().y() : m_stage.bottom(); }
    /** @brief Row labels with their layout positions: [{label, x, y}]. */
    QVariantList rowLabels() const { return m_rowLabels; }
    /** @brief The sections, from the rows' names: a row "N01-C" is row C of section N01. Empty when the rows
     * name fewer than two sections. */
    const std::vector<MapSection> &sections() const { return m_sections; }
    QVariantList sectionList() const;
    bool isSelected(int index) const { return m_selected.contains(index); }
    bool isHighlighted(int index) const { return m_highlighted.contains(m_seats[size_t(index)].seatId); }
    int indexOf(const QString &seatId) const { return m_index.value(seatId, -1); }
    /** @brief The largest number of seats one customer may select. */
    int maxSelection() const { return m_maxSelection; }

    /** @brief Select or unselect a seat; only available seats can be selected. Returns false if refused. */
    Q_INVOKABLE bool toggle(const QString &seatId);
    Q_INVOKABLE void clearSelection();
    /** @brief Select the best @p count seats (see core/bestavailable); false when none fit. */
    Q_INVOKABLE bool selectBestAvailable(int count, bool wheelchair = false);
    /**
     * @brief Mark seats someone else just took and select the nearest free block of @p wantedCount seats (0: the
     * size of the current selection).
     */
    void markTaken(const QStringList &seatIds, int wantedCount = 0);
    Q_INVOKABLE void clearHighlight();
    /** @brief The selected seats are now held by this kiosk: polls showing them held do not unselect them. */
    void setOwnHold(bool held);
    bool ownHold() const { return m_ownHold; }

Q_SIGNALS:
    void loadingChanged();
    void errorStringChanged();
    void layoutReset();
    /** @brief Seat statuses changed (a poll brought news). */
    void statusesChanged();
    void selectionChanged();
    /** @brief Seats were chosen for the customer (best available, the nearest block after a conflict): the map
     * shows them. */
    void seatsPicked(const QStringList &seatIds);
    void highlightChanged();
    /** @brief A selected seat was taken by someone else and removed from the selection. */
    void selectionLost(const QStringList &seatIds);
    void liveChanged();

private:
    void setLoading(bool loading);
    void setErrorString(const QString &error);
    /** @brief The map from a parsed full seat-map object (applyBody's format). */
    bool applyMap(const QJsonObject &root, const QByteArray &etag);
    /** @brief GET …/layout, keep it, then fetchAvailability(); @p retry: the kept one did not fit (no second retry). */
    void fetchLayout(qint64 showId, std::function<void(bool ok)> done, bool retry);
    /** @brief GET …/availability and apply it to the kept layout. */
    void fetchAvailability(qint64 showId, std::function<void(bool ok)> done, bool layoutRetried);
    void setLoadFailure(const ApiReply &reply);
    static SeatStatus statusOf(QStringView status);
    /** @brief Unselect selected seats that are no longer free (unless they are our own hold); tell the screen. */
    void dropLostSelection();
    /** @brief Sections from the rows' names (see sections()). */
    void buildSections();
    QList<BestAvailableSeat> bestAvailableInput() const;

    QPointer<KioskApi> m_api;
    QTimer m_poll;
    int m_pollMs = 0;
    LiveSeatFeed m_live;
    QUrl m_liveServer;
    QString m_liveToken;
    int m_fetches = 0;
    int m_layoutFetches = 0;
    qint64 m_showId = 0;
    QByteArray m_etag;
    QByteArray m_layoutBody; ///< GET …/layout as received: the seats, kept for rebuilding after a price edit
    QByteArray m_layoutEtag;
    QByteArray m_pricesSignature; ///< the availability's currency and tiers the map was built with
    bool m_loading = false;
    bool m_inFlight = false;
    QString m_errorString;
    std::vector<MapSeat> m_seats;
    QHash<QString, int> m_index;
    QStringList m_tierNames; // dearest first
    QList<qint64> m_tierPrices;
    QString m_currency;
    QString m_stageLabel;
    QRectF m_stage;
    bool m_stageEllipse = false;
    QRectF m_bounds;
    qreal m_pitch = 10;
    QVariantList m_rowLabels;
    std::vector<MapSection> m_sections;
    QList<int> m_selected; // seat indices in selection order
    QSet<QString> m_highlighted;
    int m_availableCount = 0;
    int m_maxSelection = 10;
    bool m_ownHold = false;
};

} // namespace marquee::app
