"""Texts for the sentence-candidate tests, written for them (no corpus text is copied): four
short Russian and four English reports on unrelated subjects, a host essay in each language
into which a test puts one of their sentences, and that sentence as it stands, with one word
changed, and reworded."""

from __future__ import annotations

RU_SOURCES = [
    "Городская библиотека открыла новый читальный зал на втором этаже старого здания. "
    "Архитекторы сохранили деревянные перекрытия и высокие окна с видом на реку. "
    "Посетители смогут бесплатно пользоваться компьютерами, сканерами и редкими "
    "справочниками по истории края. Директор библиотеки рассказала, что ремонт продолжался "
    "почти два года и обошёлся дешевле запланированного. Вечером в зале будут проходить "
    "лекции краеведов и встречи с местными писателями.",
    "Весной на опытных полях института высадили двенадцать сортов яровой пшеницы. "
    "Агрономы сравнивают урожайность, устойчивость к засухе и поражение растений "
    "грибковыми болезнями. Молодые сотрудники каждую неделю измеряют высоту стеблей и "
    "записывают наблюдения в общий журнал. Лучшие сорта планируют передать фермерским "
    "хозяйствам соседних районов уже через три года. Осенью результаты испытаний обсудят на "
    "научной конференции в областном центре.",
    "Команда школьников из небольшого северного посёлка собрала действующую модель "
    "метеостанции. Датчики температуры, влажности и атмосферного давления передают "
    "ежечасные измерения на сайт, который ребята спроектировали самостоятельно. Учитель "
    "физики помогал паять платы, а программу для обработки измерений дети отлаживали по "
    "вечерам. Метеостанция уже третий месяц работает на крыше школы без единого сбоя. Жюри "
    "регионального конкурса технического творчества присудило проекту первое место.",
    "Реставраторы музея закончили работу над портретом купеческой семьи девятнадцатого "
    "века. Под слоем потемневшего лака обнаружилась подпись художника и дата написания "
    "картины. Специалисты укрепили холст, удалили поздние записи и восстановили утраченные "
    "фрагменты рамы. Портрет займёт центральное место на выставке, посвящённой истории "
    "торговых династий губернии. Экспозиция откроется в начале декабря и продлится до конца "
    "весны.",
]

EN_SOURCES = [
    "The city library opened a new reading room on the second floor of the old building. "
    "The architects kept the wooden beams and the tall windows overlooking the river. "
    "Visitors can use computers, scanners and rare reference books on regional history free "
    "of charge. The director said the renovation took almost two years and cost less than "
    "planned. In the evenings the room will host lectures by local historians and meetings "
    "with writers.",
    "Farmers in the valley planted twelve varieties of spring wheat on the experimental "
    "fields this year. Agronomists compare the yield, the resistance to drought and the damage "
    "caused by fungal diseases. Every week young researchers measure the height of the stems "
    "and record their observations in a shared journal. The best varieties will be handed to "
    "farms in neighbouring districts within three years. In the autumn the results of the "
    "trials will be discussed at a scientific conference.",
    "A team of pupils from a small northern village built a working model of a weather "
    "station. Sensors measuring temperature, humidity and atmospheric pressure upload hourly "
    "readings to a website the pupils designed entirely themselves. The physics teacher "
    "helped to solder the boards while the students debugged the software in the evenings. "
    "The station has been running on the school roof for three months without a single "
    "failure. The jury of the regional engineering contest awarded the project first prize.",
    "Museum restorers have finished their work on a portrait of a merchant family from the "
    "nineteenth century. Beneath a layer of darkened varnish they discovered the painter's "
    "signature and the date of the painting. The specialists strengthened the canvas, removed "
    "later additions and rebuilt the lost fragments of the frame. The portrait will take the "
    "central place in an exhibition about the trading dynasties of the province. The "
    "exhibition opens in early December and runs until the end of spring.",
]

RU_HOST = (
    "Осенний марафон собрал в этом году больше пяти тысяч бегунов из разных стран. Трасса "
    "проходила по набережной, через старый мост и вдоль центрального парка. Организаторы "
    "установили пункты питания через каждые пять километров и пригласили волонтёров из "
    "университетов. Победитель пробежал дистанцию быстрее прошлогоднего рекорда почти на "
    "минуту. Многие участники признались, что хотят вернуться сюда следующей осенью. "
    "Городские власти перекрыли движение на набережной с раннего утра до вечера. Медицинские "
    "бригады дежурили у финиша и на середине дистанции. Детский забег на один километр "
    "прошёл накануне и собрал несколько сотен юных спортсменов."
)

EN_HOST = (
    "The autumn marathon drew more than five thousand runners from many countries this year. "
    "The course ran along the embankment, across the old bridge and past the central park. "
    "Organisers set up refreshment points every five kilometres and invited volunteers from "
    "the universities. The winner finished almost a minute faster than last year's record. "
    "Many runners said they would like to come back next autumn. The city closed the "
    "embankment to traffic from early morning until the evening. Medical teams waited near "
    "the finish line and halfway along the route. A children's race of one kilometre took "
    "place the day before and attracted several hundred young athletes."
)

#: language → (sources, host, the sentence of source 2 copied, it with one word changed, it
#: reworded: synonyms, another order, a word dropped)
TEXTS = {
    "ru": (
        RU_SOURCES,
        RU_HOST,
        "Датчики температуры, влажности и атмосферного давления передают ежечасные измерения "
        "на сайт, который ребята спроектировали самостоятельно.",
        "Датчики температуры, влажности и атмосферного давления отправляют ежечасные "
        "измерения на сайт, который ребята спроектировали самостоятельно.",
        "На сайт, спроектированный ребятами самостоятельно, ежечасно поступают измерения "
        "датчиков атмосферного давления, температуры и влажности.",
    ),
    "en": (
        EN_SOURCES,
        EN_HOST,
        "Sensors measuring temperature, humidity and atmospheric pressure upload hourly "
        "readings to a website the pupils designed entirely themselves.",
        "Sensors measuring temperature, humidity and atmospheric pressure send hourly readings "
        "to a website the pupils designed entirely themselves.",
        "Hourly readings of atmospheric pressure, temperature and humidity are uploaded by "
        "sensors to a website the pupils designed themselves.",
    ),
}


#: language → the first three sentences of source 1, reworded by hand (another order, other
#: forms, a few other words), as a paragraph
PARAGRAPHS = {
    "ru": "Двенадцать сортов яровой пшеницы институт весной посадил на своих опытных полях. "
    "Урожайность сортов, их устойчивость к засухе и поражение грибковыми болезнями сравнивают "
    "агрономы. Высоту стеблей молодые сотрудники измеряют еженедельно, а наблюдения заносят в "
    "общий журнал.",
    "en": "This year twelve spring wheat varieties were planted by valley farmers on "
    "experimental fields. The yield, drought resistance and fungal disease damage are being "
    "compared by agronomists. The stem height is measured weekly by young researchers, who "
    "write what they observe into a common journal.",
}


def with_sentence(host: str, sentence: str) -> tuple[str, int, int]:
    """``sentence`` put after the first sentence of ``host``: the text and its span there."""
    cut = host.index(". ") + 2
    return host[:cut] + sentence + " " + host[cut:], cut, cut + len(sentence)
