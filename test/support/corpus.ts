/**
 * A small Chinese + English knowledge base for the retrieval tests on real Milvus Lite (test/integration/
 * retrieve-milvus*.test.ts). Each short file is a single leaf (one L1, one L2, one L3: under 800 characters), and
 * each has a query whose known winner it is, on both legs: the query shares its rare terms (BM25, jieba for Chinese)
 * and its meaning (dense). The long file about honeybees splits into one L1, two L2s and several L3s per L2, so a
 * query that recalls its leaves merges them twice (L3 → L2 → L1, spec §6.5).
 */

export type ShortDoc = { key: string; file: string; text: string; query: string };

export const SHORT_DOCS: readonly ShortDoc[] = [
  {
    key: 'zh-panda',
    file: 'panda.md',
    text: '大熊猫主要生活在四川、陕西和甘肃的山区竹林里。成年大熊猫每天要花十几个小时进食，一天能吃掉十二到三十八公斤竹子。',
    query: '大熊猫一天吃多少公斤竹子？',
  },
  {
    key: 'zh-tea',
    file: 'longjing.md',
    text: '龙井茶产于浙江杭州西湖一带，是中国十大名茶之一，以色绿、香郁、味甘、形美著称。清明节前采摘的明前龙井最为珍贵。',
    query: '西湖龙井茶产自哪里？',
  },
  {
    key: 'zh-rail',
    file: 'gaotie.md',
    text: '京沪高速铁路连接北京和上海，全长约一千三百一十八公里。复兴号列车最高运营时速三百五十公里，最快四个多小时即可从北京到达上海。',
    query: '京沪高铁从北京到上海最快要多久？',
  },
  {
    key: 'en-sourdough',
    file: 'sourdough.md',
    text: 'Sourdough bread rises slowly because wild yeast and lactic acid bacteria ferment the dough. A sourdough starter must be fed with flour and water every day to stay active.',
    query: 'Why does sourdough bread rise so slowly?',
  },
  {
    key: 'en-volcano',
    file: 'volcano.md',
    text: 'Volcanoes erupt when magma from the mantle rises through cracks in the crust and reaches the surface, releasing lava, ash and volcanic gas.',
    query: 'What makes a volcano erupt?',
  },
  {
    key: 'en-chess',
    file: 'castling.md',
    text: 'In chess, castling moves the king two squares towards a rook, and the rook jumps to the square the king crossed. Castling is not allowed while the king is in check.',
    query: 'When is castling not allowed in chess?',
  },
];

export const shortDoc = (key: string): ShortDoc => {
  const doc = SHORT_DOCS.find((d) => d.key === key);
  if (!doc) throw new Error(`no short doc ${key}`);
  return doc;
};

/** ~2,300 characters in 11 paragraphs: one L1 (≤ 2,400), two L2s (1,600 with 200 overlap), ≥ 2 L3s under each. */
export const BEES = {
  file: 'honeybees.md',
  text: [
    'Honeybee colonies divide their work by age. A young worker bee spends her first days cleaning cells in the brood nest, then becomes a nurse bee that feeds the larvae with royal jelly and bee bread made from stored pollen.',
    'Around the third week a worker starts building comb. Wax glands under her abdomen secrete thin flakes of beeswax, which she chews and shapes into the hexagonal cells that hold honey, pollen and eggs.',
    'Older workers guard the entrance of the hive. Guard bees smell every bee that lands and turn away robbers from other colonies, wasps and even curious mice that try to slip inside for the honey.',
    'The last job of a worker bee is foraging. Foragers fly up to five kilometres from the hive to collect nectar, pollen, water and plant resin, and most of them die of exhaustion after a few weeks in the field.',
    'A forager that finds a rich patch of flowers performs the waggle dance on the comb. The angle of the waggle dance points to the food relative to the sun, and the length of the waggle run tells the distance.',
    'Nectar is turned into honey by evaporation and enzymes. House bees pass the nectar from mouth to mouth, add invertase that splits sucrose, and fan their wings until the water content falls below twenty percent.',
    'The queen bee is the only fertile female in the colony. She mates with a dozen drones during a few flights early in her life, stores their sperm, and lays up to two thousand eggs a day in spring.',
    'Drones are the male bees of the hive. They have no sting, do not forage, and their only task is to mate with a queen from another colony; in autumn the workers push the remaining drones out of the hive.',
    'When a bee colony grows crowded it swarms. The old queen leaves with about half of the workers, the swarm hangs on a branch while scout bees search for a hollow tree, and a new queen takes over the old nest.',
    'In winter the honeybees form a tight cluster around the queen. They shiver their flight muscles to keep the centre of the cluster near thirty degrees and slowly eat the honey stored during the summer.',
    'Beekeepers check their hives in spring for the queen, the brood pattern and the honey stores, and they add boxes called supers when the colony needs more room for honey.',
  ].join('\n\n'),
  /** Asks about the colony as a whole: every bee leaf is recalled near the top of both legs. */
  query: 'How do honeybee workers, drones and the queen bee divide the work of the hive?',
  /** A question one leaf answers (the waggle-dance paragraph), for when the leaves are not merged. */
  leafQuery: 'What does the waggle dance of a forager bee tell the other bees?',
};

/** A file whose second version is much shorter: version 1 has two L2s (ids l2::0, l2::1), version 2 only one. */
export const LIGHTHOUSE = {
  file: 'lighthouse.md',
  v1: [
    'The keepers of the Rock Island lighthouse trimmed the wick of the oil lamp every four hours through the night, so that the flame burned clean and bright.',
    'Each morning they polished the brass and the great Fresnel lens, because a film of soot on the glass could dim the beam that ships relied on.',
    'They hauled barrels of whale oil up the spiral stairs, wound the clockwork that turned the lens, and wrote the weather and every passing ship into the log book.',
    'In fog they rang the bell by hand for hours, and in winter storms they chipped the ice from the lantern windows so the light would not be lost.',
    'The keepers lived with their families in a stone cottage beside the tower, grew potatoes in a walled garden and waited weeks for the supply boat.',
    'A keeper who let the light go out could lose his post, so the night watch was split between two men who took turns climbing to the lantern room.',
    'The logbooks record shipwrecks on the reef, rescues in rowing boats, and the names of the sailors the keepers pulled out of the cold water.',
    'Children of the keepers learned to read from the books in the lighthouse library, which a charity shipped to the island in wooden crates every summer.',
    'By the late nineteenth century the oil lamp was replaced by a kerosene burner, and the keepers had to learn to pump the pressure tank every hour.',
    'The clockwork had to be wound by hand every few hours, and the keepers kept spare parts in case a spring broke during a long winter night.',
    'Inspectors from the lighthouse board arrived without warning to check the lamp, the stores of oil and the neatness of the keepers\' uniforms.',
    'When the supply boat could not land, the keepers rationed the oil for the lamp first and their own food second, because the light came before everything.',
  ].join('\n\n'),
  v2: 'The Rock Island lighthouse was automated in 1991. An electric lamp with a photocell switches on at dusk, and the old stone cottage beside the tower is now a small museum.',
  /** About version 1 only. */
  v1Query: 'How did the lighthouse keepers keep the oil lamp burning through the night?',
  v1Phrase: 'trimmed the wick',
  /** About version 2. */
  v2Query: 'When was the Rock Island lighthouse automated?',
};
